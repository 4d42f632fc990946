import { describe, expect, it } from 'vitest';
import { ElectronIpcTransport, type IpcInvokeEventLike, type IpcMainLike } from '../../../src/main/electron/ipc-transport';
import { safeStorageCipher } from '../../../src/main/electron/safe-storage-cipher';

function fakeIpcMain() {
  const handlers = new Map<string, (event: IpcInvokeEventLike, payload: unknown) => Promise<unknown>>();
  const ipcMain: IpcMainLike = {
    handle: (channel, listener) => void handlers.set(channel, listener),
    removeHandler: (channel) => void handlers.delete(channel),
  };
  return { ipcMain, handlers };
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
