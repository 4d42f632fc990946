/*
 * The window's security: its web preferences, the Content Security Policy, the app:// origin, and how an app:// URL
 * maps to a renderer file.
 */

import { isAbsolute, normalize, relative, resolve, sep } from 'node:path';

/** The app's own origin: the renderer is served from this scheme, never from a remote URL. */
export const appScheme = 'app';
export const appHost = 'workbench';
export const appOrigin = `${appScheme}://${appHost}`;

/**
 * The Content Security Policy of every page: nothing but the app's own scripts, no inline
 * scripts, no remote connections. Inline styles are allowed because the terminal sets its own
 * (sizes and colours) at run time; with nothing but the app's own origin to load from, a style
 * cannot fetch or send anything.
 */
export const contentSecurityPolicy = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** Web preferences of every window. A unit test pins the whole object, so none can be weakened quietly. */
export function secureWebPreferences(preloadPath: string) {
  return {
    preload: preloadPath,
    contextIsolation: true,
    sandbox: true,
    nodeIntegration: false,
    nodeIntegrationInWorker: false,
    nodeIntegrationInSubFrames: false,
    webviewTag: false,
    webSecurity: true,
    allowRunningInsecureContent: false,
    experimentalFeatures: false,
    enableBlinkFeatures: '',
    spellcheck: false,
    navigateOnDragDrop: false,
    safeDialogs: true,
  } as const;
}

export function mainWindowOptions(preloadPath: string) {
  return {
    width: 1400,
    height: 900,
    minWidth: 900,
    minHeight: 600,
    show: false,
    title: 'Agent Workbench',
    backgroundColor: '#1b1d21',
    webPreferences: secureWebPreferences(preloadPath),
  } as const;
}

/** Whether a URL belongs to the app; anything else is refused for navigation and IPC. */
export function isAppUrl(url: string): boolean {
  try {
    const parsed = new URL(url);
    return parsed.protocol === `${appScheme}:` && parsed.host === appHost;
  } catch {
    return false;
  }
}

/**
 * Maps an `app://workbench/...` URL to a file inside the renderer folder, or null when the path
 * would leave it (`..`, encoded separators) so the protocol handler answers 404.
 */
export function resolveAppFile(rendererRoot: string, url: string): string | null {
  if (!isAppUrl(url)) return null;
  let pathname: string;
  try {
    pathname = decodeURIComponent(new URL(url).pathname);
  } catch {
    return null;
  }
  if (pathname.includes('\0')) return null;
  const relativePath = normalize(pathname === '/' ? '/index.html' : pathname).replace(/^[/\\]+/, '');
  const file = resolve(rendererRoot, relativePath);
  const fromRoot = relative(rendererRoot, file);
  if (fromRoot === '' || fromRoot.startsWith('..') || isAbsolute(fromRoot) || fromRoot.split(sep).includes('..')) return null;
  return file;
}
