import { describe, expect, it } from 'vitest';
import { ElectronIpcTransport, type IpcInvokeEventLike, type IpcMainLike } from '../../../src/main/electron/ipc-transport';
import { safeStorageCipher } from '../../../src/main/electron/safe-storage-cipher';
import { droppedPathChannel } from '../../../src/shared/ipc/bridge';

function fakeIpcMain() {
  const handlers = new Map<string, (event: IpcInvokeEventLike, payload: unknown) => Promise<unknown>>();
  const listeners = new Map<string, Set<(event: IpcInvokeEventLike, payload: unknown) => void>>();
  const ipcMain: IpcMainLike = {
    handle: (channel, listener) => void handlers.set(channel, listener),
    removeHandler: (channel) => void handlers.delete(channel),
    on: (channel, listener) => void listeners.set(channel, (listeners.get(channel) ?? new Set()).add(listener)),
    removeListener: (channel, listener) => void listeners.get(channel)?.delete(listener),
  };
  const emit = (channel: string, event: IpcInvokeEventLike, payload: unknown): void => {
    for (const listener of listeners.get(channel) ?? []) listener(event, payload);
  };
  return { ipcMain, handlers, emit };
}

describe('ElectronIpcTransport', () => {
  it('tells the handler whether the sender is the main frame and which URL it shows', async () => {
    const { ipcMain, handlers } = fakeIpcMain();
    const seen: unknown[] = [];
    const registration = new ElectronIpcTransport(ipcMain, () => []).handle('session:list', async (sender) => {
      seen.push(sender);
      return { ok: true, value: [] };
    });
    const mainFrame = { url: 'app://workbench/index.html' };
    await handlers.get('session:list')?.({ senderFrame: mainFrame, sender: { mainFrame } }, {});
    await handlers.get('session:list')?.({ senderFrame: { url: 'app://workbench/frame.html' }, sender: { mainFrame } }, {});
    await handlers.get('session:list')?.({ senderFrame: null, sender: { mainFrame } }, {});
    expect(seen).toEqual([
      { url: 'app://workbench/index.html', isMainFrame: true },
      { url: 'app://workbench/frame.html', isMainFrame: false },
      { url: '', isMainFrame: false },
    ]);
    registration.dispose();
    expect(handlers.has('session:list')).toBe(false);
  });

  it("takes a dropped path from the app's main frame only, and only a path", () => {
    const { ipcMain, emit } = fakeIpcMain();
    const remembered: string[] = [];
    const trusted = (sender: { url: string; isMainFrame: boolean }): boolean => sender.isMainFrame && sender.url.startsWith('app://');
    const listening = new ElectronIpcTransport(ipcMain, () => []).onDroppedPath(trusted, (path) => remembered.push(path));
    const mainFrame = { url: 'app://workbench/index.html' };
    emit(droppedPathChannel, { senderFrame: mainFrame, sender: { mainFrame } }, '/home/me/project');
    emit(droppedPathChannel, { senderFrame: { url: 'app://workbench/frame.html' }, sender: { mainFrame } }, '/etc');
    emit(droppedPathChannel, { senderFrame: mainFrame, sender: { mainFrame } }, { path: '/etc' });
    emit(droppedPathChannel, { senderFrame: mainFrame, sender: { mainFrame } }, 'a\0b');
    expect(remembered).toEqual(['/home/me/project']);
    listening.dispose();
    emit(droppedPathChannel, { senderFrame: mainFrame, sender: { mainFrame } }, '/later');
    expect(remembered).toEqual(['/home/me/project']);
  });

  it('sends events to live windows only', () => {
    const received: string[] = [];
    const live = { isDestroyed: () => false, send: (channel: string) => void received.push(`live:${channel}`) };
    const dead = { isDestroyed: () => true, send: (channel: string) => void received.push(`dead:${channel}`) };
    new ElectronIpcTransport(fakeIpcMain().ipcMain, () => [live, dead]).send('session:changed', { deletedSessionId: 'x' });
    expect(received).toEqual(['live:session:changed']);
  });
});

describe('safeStorageCipher', () => {
  const storage = (backend: string) => ({
    isEncryptionAvailable: () => true,
    encryptString: (plain: string) => Buffer.from(plain),
    decryptString: (encrypted: Buffer) => encrypted.toString(),
    getSelectedStorageBackend: () => backend,
  });

  it('does not count the plain-text Linux fallback as encryption', () => {
    expect(safeStorageCipher(storage('basic_text'), 'linux').isAvailable()).toBe(false);
    expect(safeStorageCipher(storage('gnome_libsecret'), 'linux').isAvailable()).toBe(true);
    expect(safeStorageCipher(storage('unknown'), 'darwin').isAvailable()).toBe(true);
  });
});
