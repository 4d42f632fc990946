/*
 * The IPC transport of the app: requests through Electron's `ipcMain.handle` with the sending frame's URL, events to
 * every live window.
 */

import { limits } from '../../shared/domain';
import { droppedPathChannel } from '../../shared/ipc/bridge';
import type { ChannelName, EventName, IpcResult } from '../../shared/ipc/contract';
import type { Disposable, IpcTransport, SenderInfo } from '../ipc/router';

/** The parts of Electron's `ipcMain` and its events this transport uses, so it can be tested without Electron. */
export interface IpcMainLike {
  handle(channel: string, listener: (event: IpcInvokeEventLike, payload: unknown) => Promise<unknown>): void;
  removeHandler(channel: string): void;
  on(channel: string, listener: (event: IpcInvokeEventLike, payload: unknown) => void): void;
  removeListener(channel: string, listener: (event: IpcInvokeEventLike, payload: unknown) => void): void;
}

export interface IpcInvokeEventLike {
  readonly senderFrame: { readonly url: string } | null;
  readonly sender: { readonly mainFrame: unknown };
}

export interface WebContentsLike {
  isDestroyed(): boolean;
  send(channel: string, payload: unknown): void;
}

function senderOf(event: IpcInvokeEventLike): SenderInfo {
  const frame = event.senderFrame;
  return { url: frame?.url ?? '', isMainFrame: frame !== null && frame === event.sender.mainFrame };
}

/** Requests through `ipcMain.handle`, events to every live window's webContents. */
export class ElectronIpcTransport implements IpcTransport {
  constructor(
    private readonly ipcMain: IpcMainLike,
    private readonly targets: () => readonly WebContentsLike[],
  ) {}

  handle(channel: ChannelName, handler: (sender: SenderInfo, payload: unknown) => Promise<IpcResult<unknown>>): Disposable {
    // Results resolve as data: Electron would keep only `message` of a thrown error.
    this.ipcMain.handle(channel, (event, payload) => handler(senderOf(event), payload));
    return { dispose: () => this.ipcMain.removeHandler(channel) };
  }

  /**
   * Hears the paths the preload says were dropped on the window (see `droppedPathChannel`), from a sender `trusted`
   * accepts; anything else (another frame, not a path) is ignored.
   */
  onDroppedPath(trusted: (sender: SenderInfo) => boolean, remember: (path: string) => void): Disposable {
    const listener = (event: IpcInvokeEventLike, payload: unknown): void => {
      if (typeof payload !== 'string' || payload === '' || payload.length > limits.pathLength || payload.includes('\0')) return;
      if (trusted(senderOf(event))) remember(payload);
    };
    this.ipcMain.on(droppedPathChannel, listener);
    return { dispose: () => this.ipcMain.removeListener(droppedPathChannel, listener) };
  }

  send(event: EventName, payload: unknown): void {
    for (const contents of this.targets()) {
      if (!contents.isDestroyed()) contents.send(event, payload);
    }
  }
}
