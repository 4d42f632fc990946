/*
 * The sandboxed preload: exposes the bridge built from the IPC contract to the page as `window.workbench`, and nothing
 * else.
 *
 * It is bundled into one CommonJS file because a sandboxed preload cannot require packages.
 */

import { contextBridge, ipcRenderer, webUtils } from 'electron';
import { createBridge, droppedPathChannel } from '../shared/ipc/bridge';

contextBridge.exposeInMainWorld(
  'workbench',
  createBridge({
    invoke: (channel, input) => ipcRenderer.invoke(channel, input),
    subscribe: (event, listener) => {
      const wrapped = (_event: Electron.IpcRendererEvent, payload: unknown): void => listener(payload);
      ipcRenderer.on(event, wrapped);
      return () => {
        ipcRenderer.removeListener(event, wrapped);
      };
    },
    // Main is told of a dropped item's path here, from the drop's own file (a page cannot make one with a path of its
    // choosing), before the page has it: main accepts a path the window names only if the person chose it.
    pathForFile: (file) => {
      let path: string | null;
      try {
        path = webUtils.getPathForFile(file) || null;
      } catch {
        path = null;
      }
      if (path !== null) ipcRenderer.send(droppedPathChannel, path);
      return path;
    },
  }),
);
