import { contextBridge, ipcRenderer, webUtils } from 'electron';
import { createBridge } from '../shared/ipc/bridge';

/*
 * The sandboxed preload: the bridge built from the contract, nothing else. It is bundled into one
 * CommonJS file because a sandboxed preload cannot require packages.
 */
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
