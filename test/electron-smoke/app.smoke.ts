/// <reference lib="dom" />
import { existsSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { expect as expectPage } from 'playwright/test';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contentSecurityPolicy, isAppUrl, secureWebPreferences } from '../../src/main/electron/window-options';
import { channelNames, eventNames } from '../../src/shared/ipc/contract';
import { machineInfoSchema } from '../../src/shared/local-models';
import { electronApp, needs } from '../platform';
import { builtPreload, launchSmokeApp, projectRoot, type SmokeApp } from './app';

/** The preferences that keep the page from Node and from other origins: each as the window factory sets it. */
const guardedPreferences = [
  'preload',
  'contextIsolation',
  'sandbox',
  'nodeIntegration',
  'nodeIntegrationInWorker',
  'nodeIntegrationInSubFrames',
  'webviewTag',
  'webSecurity',
  'allowRunningInsecureContent',
] as const;

/**
 * Electron's `webContents.getLastWebPreferences()`: the preferences the page was really given. It is missing from
 * electron.d.ts, though Electron has it (shell/browser/api/electron_api_web_contents.cc), so it is named here.
 */
interface AppliedPreferences {
  getLastWebPreferences(): Record<string, unknown> | null;
}

describe('the built app in Electron', needs(electronApp), () => {
  let smoke: SmokeApp;
  beforeAll(async () => {
    smoke = await launchSmokeApp();
  });
  afterAll(async () => {
    if (!smoke) return;
    await smoke.close();
    expect(smoke.pageErrors).toEqual([]);
  });

  it('starts on the fresh data folder it was given, with its database open', async () => {
    // Compared as real paths: the temporary folder may be reached through a link (macOS's /var is /private/var).
    const userData = await smoke.app.evaluate(({ app }) => app.getPath('userData'));
    expect(realpathSync(userData)).toBe(realpathSync(smoke.dataDir));
    await expectPage(smoke.window.locator('header.status-bar')).toBeVisible();
    await expectPage(smoke.window.locator('.startup-error')).toHaveCount(0);
    expect(existsSync(join(smoke.dataDir, 'workbench.sqlite')), smoke.mainOutput()).toBe(true);
  });

  it('gives its one window the web preferences of the window factory: isolated, sandboxed, without Node, web security on', async () => {
    const applied = await smoke.app.evaluate(({ BrowserWindow }, keys) => {
      return BrowserWindow.getAllWindows().map((window) => {
        const preferences = (window.webContents as unknown as AppliedPreferences).getLastWebPreferences() ?? {};
        return Object.fromEntries(keys.map((key) => [key, preferences[key]]));
      });
    }, guardedPreferences);
    expect(applied).toHaveLength(1);
    // The preload as a real path: the app names it from where Electron loaded the app, which may be through a link.
    const { preload, ...rest } = applied[0] ?? {};
    expect(typeof preload === 'string' ? realpathSync(preload) : preload).toBe(realpathSync(builtPreload));
    const expected = secureWebPreferences(builtPreload);
    expect(rest).toEqual(Object.fromEntries(guardedPreferences.filter((key) => key !== 'preload').map((key) => [key, expected[key]])));
  });

  it("shows nothing but the app's own pages, served with the Content Security Policy", async () => {
    const urls = await smoke.app.evaluate(({ webContents }) => webContents.getAllWebContents().map((contents) => contents.getURL()));
    expect(urls.length).toBeGreaterThan(0);
    expect(urls.filter((url) => !isAppUrl(url))).toEqual([]);
    const served = await smoke.window.evaluate(async () => (await fetch('/index.html')).headers.get('content-security-policy'));
    expect(served).toBe(contentSecurityPolicy);
  });

  it('refuses a request to another origin, a navigation away and a new window', async () => {
    const page = smoke.window;
    // The policy stops the request before it is made: the page hears of it as a violation of connect-src.
    const violated = await page.evaluate(async () => {
      const heard = new Promise<string>((resolve) =>
        document.addEventListener('securitypolicyviolation', (event) => resolve(event.effectiveDirective), { once: true }),
      );
      await fetch('http://127.0.0.1:9/').catch(() => undefined);
      return Promise.race([heard, new Promise<string>((resolve) => setTimeout(() => resolve('no violation'), 5_000))]);
    });
    expect(violated).toBe('connect-src');

    const before = page.url();
    await page.evaluate(() => {
      (globalThis as { smokeMark?: boolean }).smokeMark = true;
      location.href = 'https://example.invalid/';
    });
    // A navigation that went ahead would have replaced the document, and its mark with it, well within this.
    await page.waitForTimeout(1_500);
    expect(page.url()).toBe(before);
    expect(await page.evaluate(() => (globalThis as { smokeMark?: boolean }).smokeMark)).toBe(true);

    // A URL of the app's own, so that nothing is handed to the person's browser: still no window.
    expect(await page.evaluate(() => open('app://workbench/index.html') === null)).toBe(true);
    expect(await smoke.app.evaluate(({ BrowserWindow }) => BrowserWindow.getAllWindows().length)).toBe(1);
  });

  it("gives the page the preload's bridge with exactly the contract's channels and events, and no Node", async () => {
    const seen = await smoke.window.evaluate(() => {
      const page = globalThis as unknown as Record<string, unknown>;
      const bridge = page['workbench'] as Record<string, object> | undefined;
      return {
        bridge: bridge ? Object.getOwnPropertyNames(bridge).sort() : null,
        invoke: bridge ? Object.getOwnPropertyNames(bridge['invoke']).sort() : null,
        on: bridge ? Object.getOwnPropertyNames(bridge['on']).sort() : null,
        node: ['require', 'process', 'module', 'Buffer', 'global', 'ipcRenderer'].filter((name) => typeof page[name] !== 'undefined'),
      };
    });
    expect(seen).toEqual({
      bridge: ['invoke', 'on', 'pathForFile'],
      invoke: [...channelNames].sort(),
      on: [...eventNames].sort(),
      node: [],
    });
  });

  it("loads SQLite with SQLite3 Multiple Ciphers' encryption and node-pty in the main process", async () => {
    const loaded = await smoke.app.evaluate(async (_electron, root) => {
      const { createRequire } = process.getBuiltinModule('node:module');
      const load = createRequire(`${root}/package.json`);
      type Statement = { get(): { version: string } };
      const Database = load('better-sqlite3-multiple-ciphers') as new (path: string) => { prepare(sql: string): Statement; close(): void };
      const database = new Database(':memory:');
      const sqlite = database.prepare('select sqlite3mc_version() as version').get().version;
      database.close();
      type Terminal = { onData(listener: (data: string) => void): void; onExit(listener: (exit: { exitCode: number }) => void): void };
      const pty = load('node-pty') as { spawn(file: string, args: string[], options: { cols: number; rows: number }): Terminal };
      const windows = process.platform === 'win32';
      const terminal = pty.spawn(windows ? 'cmd.exe' : '/bin/sh', windows ? ['/c', 'echo smoke'] : ['-c', 'echo smoke'], {
        cols: 80,
        rows: 24,
      });
      let output = '';
      terminal.onData((data) => (output += data));
      const exitCode = await new Promise<number>((resolve) => terminal.onExit((exit) => resolve(exit.exitCode)));
      return { sqlite, pty: { exitCode, output: output.trim() } };
    }, projectRoot);
    expect(loaded.sqlite).toMatch(/^SQLite3 Multiple Ciphers \d/);
    expect(loaded.pty).toEqual({ exitCode: 0, output: expect.stringContaining('smoke') });
  });

  it("starts the built-in runtime's utility process, which tests and loads node-llama-cpp's prebuilt binding", async () => {
    // Asked as the Settings page asks it: main starts the runtime as a utility process (src/main/electron/utility-runtime.ts),
    // runs node-llama-cpp's binary test for it as a utility process of its own (the RunAsNode fuse is off), and answers
    // once getLlama has loaded.
    const answer = await smoke.window.evaluate(async () => {
      const bridge = (globalThis as unknown as { workbench: { invoke: Record<string, (input: unknown) => Promise<unknown>> } }).workbench;
      const asked = bridge.invoke['local-model:machine'];
      if (!asked) return { error: 'the bridge has no local-model:machine' };
      try {
        return { machine: await asked({}) };
      } catch (error) {
        return { error: (error as Error).message };
      }
    });
    expect(answer, smoke.mainOutput()).not.toHaveProperty('error');
    expect(machineInfoSchema.safeParse('machine' in answer ? answer.machine : null).success).toBe(true);
    // The page is answered from Node's view of the machine when the runtime fails; so the runtime is looked for too: a
    // process that stopped, or sent a message it may not (which stops it), is no longer among the app's processes.
    const utilities = await smoke.app.evaluate(({ app }) =>
      app
        .getAppMetrics()
        .filter((metric) => metric.type === 'Utility')
        .map((metric) => metric.name ?? ''),
    );
    expect(utilities, smoke.mainOutput()).toContain('Agent Workbench model runtime');
  }, 120_000);
});
