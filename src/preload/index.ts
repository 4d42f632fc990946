/*
 * The sandboxed preload: exposes the bridge built from the IPC contract to the page as `window.workbench`, and nothing
 * else.
 *
 * It is bundled into one CommonJS file because a sandboxed preload cannot require packages.
 */

import { contextBridge, ipcRenderer, webUtils } from 'electron';
import { createBridge } from '../shared/ipc/bridge';

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
    pathForFile: (file) => {
      try {
        return webUtils.getPathForFile(file) || null;
      } catch {
        return null;
      }
    },
  }),
);
