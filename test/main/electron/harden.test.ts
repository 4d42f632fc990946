import { describe, expect, it } from 'vitest';
import { denyAllPermissions, hardenWebContents, type HardenableContents } from '../../../src/main/electron/harden';

function fakeContents() {
  const listeners = new Map<string, (event: { preventDefault(): void }, url?: string) => void>();
  let openHandler: ((details: { url: string }) => { action: 'deny' }) | null = null;
  const contents = {
    setWindowOpenHandler: (handler: (details: { url: string }) => { action: 'deny' }) => {
      openHandler = handler;
    },
    on: (event: string, listener: (event: { preventDefault(): void }, url?: string) => void) => {
      listeners.set(event, listener);
    },
  } as unknown as HardenableContents;
  const fire = (event: string, url?: string): boolean => {
    let prevented = false;
    listeners.get(event)?.({ preventDefault: () => (prevented = true) }, url);
    return prevented;
  };
  return { contents, fire, open: (url: string) => openHandler?.({ url }) };
}

describe('hardenWebContents', () => {
  it('denies every new window and sends web links to the browser instead', () => {
    const opened: string[] = [];
    const fake = fakeContents();
    hardenWebContents(fake.contents, (url) => opened.push(url));
    expect(fake.open('https://example.com/docs')).toEqual({ action: 'deny' });
    expect(fake.open('file:///etc/passwd')).toEqual({ action: 'deny' });
    expect(fake.open('javascript:alert(1)')).toEqual({ action: 'deny' });
    expect(opened).toEqual(['https://example.com/docs']);
  });

  it('blocks navigation and redirects away from the app, and every webview', () => {
    const fake = fakeContents();
    hardenWebContents(fake.contents, () => undefined);
    expect(fake.fire('will-navigate', 'https://evil.example/')).toBe(true);
    expect(fake.fire('will-navigate', 'file:///home/user/.ssh/id_rsa')).toBe(true);
    expect(fake.fire('will-navigate', 'app://workbench/index.html')).toBe(false);
    expect(fake.fire('will-redirect', 'http://127.0.0.1:9999/')).toBe(true);
    expect(fake.fire('will-attach-webview')).toBe(true);
  });
});

describe('denyAllPermissions', () => {
  it('refuses every permission request and check but desktop notifications', () => {
    const handlers: {
      request?: (contents: unknown, permission: string, callback: (granted: boolean) => void) => void;
      check?: (...args: unknown[]) => boolean;
    } = {};
    denyAllPermissions({
      setPermissionRequestHandler: (handler) => (handlers.request = handler),
      setPermissionCheckHandler: (handler) => (handlers.check = handler),
    });
    const answers: boolean[] = [];
    for (const permission of ['media', 'geolocation', 'notifications', 'clipboard-read'])
      handlers.request?.(null, permission, (granted: boolean) => answers.push(granted));
    expect(answers).toEqual([false, false, true, false]);
    expect(handlers.check?.(null, 'media')).toBe(false);
    expect(handlers.check?.(null, 'notifications')).toBe(true);
  });
});
