import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  contentSecurityPolicy,
  isAppUrl,
  mainWindowOptions,
  resolveAppFile,
  secureWebPreferences,
} from '../../../src/main/electron/window-options';

describe('the window factory', () => {
  it('pins every web preference of the main window', () => {
    expect(mainWindowOptions('/app/out/preload/index.cjs').webPreferences).toStrictEqual({
      preload: '/app/out/preload/index.cjs',
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
    });
    expect(secureWebPreferences('p')).toStrictEqual(mainWindowOptions('p').webPreferences);
  });

  it('uses a CSP that allows no inline or remote script and no remote connection', () => {
    expect(contentSecurityPolicy).toContain("default-src 'none'");
    expect(contentSecurityPolicy).toContain("script-src 'self'");
    expect(contentSecurityPolicy).not.toMatch(/script-src[^;]*unsafe-inline/);
    expect(contentSecurityPolicy).toContain("connect-src 'self'");
    expect(contentSecurityPolicy).not.toContain('unsafe-eval');
    expect(contentSecurityPolicy).not.toMatch(/https?:/);
  });

  it('treats only the app origin as the app', () => {
    expect(isAppUrl('app://workbench/index.html')).toBe(true);
    expect(isAppUrl('app://other/index.html')).toBe(false);
    expect(isAppUrl('https://workbench/index.html')).toBe(false);
    expect(isAppUrl('file:///etc/passwd')).toBe(false);
    expect(isAppUrl('not a url')).toBe(false);
  });

  it('serves files from the renderer folder only', () => {
    const root = '/app/out/renderer';
    expect(resolveAppFile(root, 'app://workbench/')).toBe(join(root, 'index.html'));
    expect(resolveAppFile(root, 'app://workbench/assets/index.js')).toBe(join(root, 'assets/index.js'));
    const attempts = [
      'app://workbench/../../main/index.js',
      'app://workbench/%2e%2e/%2e%2e/secrets.json',
      'app://workbench/assets/..%2f..%2f..%2fsecrets.json',
      'app://workbench/assets/..%5c..%5c..%5csecrets.json',
      'app://workbench//etc/passwd',
    ];
    for (const url of attempts) {
      const file = resolveAppFile(root, url);
      expect(file === null || file.startsWith(`${root}/`), `${url} -> ${file}`).toBe(true);
    }
    expect(resolveAppFile(root, 'app://workbench/a%00b')).toBeNull();
    expect(resolveAppFile(root, 'app://evil/index.html')).toBeNull();
  });
});
