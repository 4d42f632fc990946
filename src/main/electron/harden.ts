/*
 * The hardening of every page: no new windows, no navigation or redirect away from the app, no webviews, and every
 * permission denied but notifications.
 */

import { isAppUrl } from './window-options';

/** The parts of Electron's webContents the hardening uses, so it is testable without Electron. */
export interface HardenableContents {
  setWindowOpenHandler(handler: (details: { url: string }) => { action: 'deny' }): void;
  on(event: 'will-navigate' | 'will-redirect', listener: (event: { preventDefault(): void }, url: string) => void): void;
  on(event: 'will-attach-webview', listener: (event: { preventDefault(): void }) => void): void;
}

/** The parts of Electron's session the hardening uses. */
export interface PermissionSession {
  setPermissionRequestHandler(handler: (contents: unknown, permission: string, callback: (granted: boolean) => void) => void): void;
  setPermissionCheckHandler(handler: (...args: unknown[]) => boolean): void;
}

/**
 * Every webContents: no new windows (http links go to the person's browser instead), no navigation
 * or redirect away from the app, no webviews.
 */
export function hardenWebContents(contents: HardenableContents, openExternal: (url: string) => void): void {
  contents.setWindowOpenHandler(({ url }) => {
    if (/^https?:\/\//i.test(url)) openExternal(url);
    return { action: 'deny' };
  });
  contents.on('will-navigate', (event, url) => {
    if (!isAppUrl(url)) event.preventDefault();
  });
  contents.on('will-redirect', (event, url) => {
    if (!isAppUrl(url)) event.preventDefault();
  });
  contents.on('will-attach-webview', (event) => event.preventDefault());
}

/** The one permission the app uses: desktop notifications, when a session waits for an approval in the background. */
export const grantedPermissions: ReadonlySet<string> = new Set(['notifications']);

/** Camera, microphone, geolocation, clipboard reading, everything else: denied. */
export function denyAllPermissions(session: PermissionSession): void {
  session.setPermissionRequestHandler((_contents, permission, callback) => callback(grantedPermissions.has(permission)));
  session.setPermissionCheckHandler((...args: unknown[]) => grantedPermissions.has(String(args[1])));
}
