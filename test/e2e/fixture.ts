import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright';
import { afterAll, afterEach, expect } from 'vitest';
import { chromiumArguments, chromiumHelp, findChromium } from '../../scripts/find-chromium.mjs';
import { temporaryFolder } from '../helpers';
import { startTestHost, type TestHost, type TestHostOptions } from '../host/host';
import { ScriptedModelServer, type ScriptedModelServerOptions } from '../scripted-model-server';

/** The screen sizes each part is looked at in: small, large, then the size tests run at, which is left in place. */
export const screenSizes = [
  [1024, 640],
  [1920, 1080],
  [1280, 800],
] as const;

export const screenshotDir = join(import.meta.dirname, '../../test-results/screenshots');

let browser: Browser | null = null;

/** One headless Chromium for the whole file, started with the flags this machine needs. */
export async function launchBrowser(): Promise<Browser> {
  if (browser) return browser;
  const executablePath = await findChromium();
  if (!executablePath) throw new Error(chromiumHelp);
  browser = await chromium.launch({
    executablePath,
    args: [...chromiumArguments],
  });
  return browser;
}

export async function closeBrowser(): Promise<void> {
  await browser?.close();
  browser = null;
}

export interface Workbench {
  readonly page: Page;
  readonly host: TestHost;
  readonly server: ScriptedModelServer;
  readonly dataDir: string;
  readonly pageErrors: string[];
  screenshot(name: string): Promise<void>;
  /** Screenshots at 1024x640, 1920x1080 and 1280x800 (the size tests run at, left in place), named with the size. */
  screenshotAtSizes(name: string): Promise<void>;
  /** Adds the scripted server as an endpoint and makes it the default model. */
  configureScriptedModel(): Promise<string>;
  /** Starts a new host on the same data folder, as a restart of the app would. */
  restart(options?: Partial<TestHostOptions>): Promise<void>;
  /** Stops the host, lets `meanwhile` use the data folder (another life of the app), then starts the host again. */
  restartAfter(meanwhile: () => Promise<void>): Promise<void>;
  close(): Promise<void>;
}

/**
 * Waits until the window is up (its status bar, or the screen that says why it could not start), so the keys a test
 * presses next reach the app rather than a page still loading. A window that never comes up is for the test to find.
 */
async function windowUp(page: Page): Promise<void> {
  await page
    .waitForFunction(() => document.querySelector('header.status-bar, .startup-error') !== null, null, { timeout: 15_000 })
    .catch(() => undefined);
}

export async function openWorkbench(
  options: Partial<TestHostOptions> = {},
  serverOptions: ScriptedModelServerOptions = {},
): Promise<Workbench> {
  const folder = temporaryFolder('workbench-e2e-');
  const server = await ScriptedModelServer.start({
    models: [{ id: 'scripted-model', contextLength: 32768 }, { id: 'scripted-large' }],
    // WORKBENCH_E2E_TOOL_CALLS=text runs every story with models that only write their tool calls as text.
    textOnly: process.env['WORKBENCH_E2E_TOOL_CALLS'] === 'text',
    ...serverOptions,
  });
  let host = await startTestHost({ dataDir: folder.path, retryPolicy: { maxAttempts: 2, baseDelayMs: 10, maxDelayMs: 50 }, ...options });
  const context = await (await launchBrowser()).newContext({ viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  const pageErrors: string[] = [];
  page.on('pageerror', (error) => pageErrors.push(error.message));
  await page.goto(host.url);
  await windowUp(page);
  mkdirSync(screenshotDir, { recursive: true });
  const workbench: Workbench = {
    page,
    get host() {
      return host;
    },
    server,
    dataDir: folder.path,
    pageErrors,
    screenshot: async (name) => {
      await page.screenshot({ path: join(screenshotDir, `${name}.png`) });
    },
    screenshotAtSizes: async (name) => {
      for (const [width, height] of screenSizes) {
        await page.setViewportSize({ width, height });
        // The status bar folds by measuring itself after a resize.
        await page.waitForTimeout(150);
        await page.screenshot({ path: join(screenshotDir, `${name}-${width}x${height}.png`) });
      }
    },
    configureScriptedModel: async () => {
      const saved = await host.invoke('provider:save', { kind: 'openai-compatible', name: 'Scripted', baseUrl: server.openaiBaseUrl });
      if (!saved.ok) throw new Error(saved.error.message);
      const providerId = (saved.value as { id: string }).id;
      await host.invoke('settings:update', { defaultModel: { providerId, model: 'scripted-model' } });
      await page.reload();
      await windowUp(page);
      return providerId;
    },
    restart: async (restartOptions = {}) => {
      await host.close();
      host = await startTestHost({ dataDir: folder.path, ...options, ...restartOptions });
      await page.goto(host.url);
      await windowUp(page);
    },
    restartAfter: async (meanwhile) => {
      await host.close();
      await meanwhile();
      host = await startTestHost({ dataDir: folder.path, ...options });
      await page.goto(host.url);
      await windowUp(page);
    },
    close: async () => {
      await context.close();
      await host.close();
      await server.close();
      folder.remove();
    },
  };
  return workbench;
}

/**
 * Registers the hooks of an end-to-end file: after each test the page must have thrown nothing and
 * its workbench is closed; after the file the browser is. Returns the way to open a workbench.
 */
export function useWorkbenches(
  afterEachTest?: () => void,
): (options?: Partial<TestHostOptions>, serverOptions?: ScriptedModelServerOptions) => Promise<Workbench> {
  let current: Workbench | null = null;
  afterEach(async () => {
    const opened = current;
    current = null;
    afterEachTest?.();
    if (opened) expect(opened.pageErrors).toEqual([]);
    await opened?.close();
  });
  afterAll(closeBrowser);
  return async (options = {}, serverOptions = {}) => (current = await openWorkbench(options, serverOptions));
}
