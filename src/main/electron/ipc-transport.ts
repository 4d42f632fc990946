/*
 * The IPC transport of the app: requests through Electron's `ipcMain.handle` with the sending frame's URL, events to
 * every live window.
 */

import type { ChannelName, EventName, IpcResult } from '../../shared/ipc/contract';
import type { Disposable, IpcTransport, SenderInfo } from '../ipc/router';

/** The parts of Electron's `ipcMain` and its events this transport uses, so it can be tested without Electron. */
export interface IpcMainLike {
  handle(channel: string, listener: (event: IpcInvokeEventLike, payload: unknown) => Promise<unknown>): void;
  removeHandler(channel: string): void;
}

export interface IpcInvokeEventLike {
  readonly senderFrame: { readonly url: string } | null;
  readonly sender: { readonly mainFrame: unknown };
}

export interface WebContentsLike {
  isDestroyed(): boolean;
  send(channel: string, payload: unknown): void;
}

/** Requests through `ipcMain.handle`, events to every live window's webContents. */
export class ElectronIpcTransport implements IpcTransport {
  constructor(
    private readonly ipcMain: IpcMainLike,
    private readonly targets: () => readonly WebContentsLike[],
  ) {}

  handle(channel: ChannelName, handler: (sender: SenderInfo, payload: unknown) => Promise<IpcResult<unknown>>): Disposable {
    this.ipcMain.handle(channel, (event, payload) => {
      const frame = event.senderFrame;
      const sender: SenderInfo = { url: frame?.url ?? '', isMainFrame: frame !== null && frame === event.sender.mainFrame };
      // Results resolve as data: Electron would keep only `message` of a thrown error.
      return handler(sender, payload);
    });
    return { dispose: () => this.ipcMain.removeHandler(channel) };
  }

  send(event: EventName, payload: unknown): void {
    for (const contents of this.targets()) {
      if (!contents.isDestroyed()) contents.send(event, payload);
    }
  }
}
