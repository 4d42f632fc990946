import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { _electron as electron, type ElectronApplication, type Page } from 'playwright';

/** The project's root: Electron starts the app from its package.json, whose `main` is the built out/main/index.js. */
export const projectRoot = resolve(import.meta.dirname, '../..');
export const builtPreload = join(projectRoot, 'out/preload/index.cjs');

export interface SmokeApp {
  readonly app: ElectronApplication;
  readonly window: Page;
  /** The fresh data folder the app was given (WORKBENCH_DATA_DIR). */
  readonly dataDir: string;
  /** What the page threw, for the test to find empty. */
  readonly pageErrors: string[];
  /** The last of what the main process wrote to its error output, to say why it failed. */
  mainOutput(): string;
  close(): Promise<void>;
}

/**
 * The environment the app starts with: this process's, less what would change what is tested. ELECTRON_RUN_AS_NODE would
 * start Node instead of the app; a key for Anthropic's API in the environment would become an endpoint of the person's
 * that nothing here is to use. WORKBENCH_DATA_DIR names the fresh data folder.
 */
function appEnvironment(dataDir: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) if (value !== undefined) env[name] = value;
  delete env['ELECTRON_RUN_AS_NODE'];
  delete env['ANTHROPIC_API_KEY'];
  env['WORKBENCH_DATA_DIR'] = dataDir;
  return env;
}

/**
 * Starts the built app in Electron on a fresh data folder, with `args` after the app's path (a folder to open), and waits
 * for its window to be up: its status bar, or the screen that says why it could not start.
 *
 * No `executablePath` is given: Playwright then starts the `electron` package's own binary (what `require('electron')`
 * names) with its loader, which takes Playwright's switches out of `process.argv` before the app reads it, so that the
 * app's launch arguments are read as a person's would be (src/main/electron/launch-args.ts). With an `executablePath`
 * Playwright starts the binary without that loader. On Linux Playwright adds `--no-sandbox` (its `chromiumSandbox`
 * default), which root and most containers need: the window's `sandbox` preference is checked here, not the OS sandbox
 * Chromium puts around its renderers.
 */
export async function launchSmokeApp(args: readonly string[] = []): Promise<SmokeApp> {
  // The app keeps worktrees beside its data folder, so both go into one temporary folder that is removed at the end.
  const parent = mkdtempSync(join(tmpdir(), 'workbench-electron-smoke-'));
  const dataDir = join(parent, 'data');
  mkdirSync(dataDir);
  let output = '';
  let app: ElectronApplication;
  try {
    app = await electron.launch({ args: [projectRoot, ...args], cwd: projectRoot, env: appEnvironment(dataDir), timeout: 60_000 });
  } catch (error) {
    rmSync(parent, { recursive: true, force: true });
    throw error;
  }
  app.process().stderr?.on('data', (chunk: Buffer) => (output = (output + chunk.toString()).slice(-8_000)));
  const pageErrors: string[] = [];
  const window = await app.firstWindow();
  window.on('pageerror', (error) => pageErrors.push(error.message));
  await window.waitForFunction(() => document.querySelector('header.status-bar, .startup-error') !== null, null, { timeout: 30_000 });
  return {
    app,
    window,
    dataDir,
    pageErrors,
    mainOutput: () => output,
    close: async () => {
      await app.close();
      rmSync(parent, { recursive: true, force: true });
    },
  };
}
