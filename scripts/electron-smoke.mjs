/*
 * Whether the Electron smoke suite (test/electron-smoke/) can run here, and why not: the `electron` package's binary,
 * found as the package's own index.js finds it (`path.txt` under `dist/`, or ELECTRON_OVERRIDE_DIST_PATH), and on
 * Linux a display for its window (a desktop's, or one xvfb-run makes). `npm run test:electron`, `npm test` and
 * test/platform.ts all ask here, so they give the same reason.
 */
import { spawnSync } from 'node:child_process';
import { accessSync, constants, existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, isAbsolute, join, relative } from 'node:path';
import { z } from 'zod';

/**
 * The exit status of `npm run test:electron` when the suite could not run here: 77, the status Automake and Meson
 * read as "skipped". Neither 0 (passed) nor 1 (failed), so no caller can take a run that did not happen for a pass.
 */
export const notRunStatus = 77;

/** The file system as the checks read it; the machine's own unless a test gives another. */
export const machineFiles = {
  exists: (path) => existsSync(path),
  read: (path) => {
    try {
      return readFileSync(path, 'utf8');
    } catch {
      return null;
    }
  },
  executable: (path) => {
    try {
      accessSync(path, constants.X_OK);
      return true;
    } catch {
      return false;
    }
  },
};

/** Whether a program starts here (with `--help`, which does nothing). */
export function installed(program) {
  return spawnSync(program, ['--help'], { stdio: 'ignore', timeout: 5_000 }).error === undefined;
}

/** The folder of the installed `electron` package, or null when there is none. */
export function electronPackageDir() {
  try {
    return dirname(createRequire(import.meta.url).resolve('electron/package.json'));
  } catch {
    return null;
  }
}

// What path.txt may say: the binary's path inside dist/, as the package's install.js writes it, with no newline.
const pathTxtSchema = z
  .string()
  .min(1, 'it is empty')
  .refine((value) => !/[\0\r\n]/.test(value), 'it holds a line break or a NUL')
  .refine((value) => !isAbsolute(value), 'it names an absolute path rather than one inside dist/');

const reinstall = 'run `npm rebuild electron` with ELECTRON_SKIP_BINARY_DOWNLOAD unset, or reinstall without it';

/**
 * The Electron binary `require('electron')` names, or why there is none: `{ path }` or `{ missing }`. The package's
 * index.js throws only where path.txt is missing; here a path.txt that names no file, or a file that cannot be run,
 * counts as missing too, since Electron would not start from it.
 */
export function findElectronBinary({
  packageDir = electronPackageDir(),
  env = process.env,
  platform = process.platform,
  root = process.cwd(),
  files = machineFiles,
} = {}) {
  const shown = (path) => {
    const inside = relative(root, path);
    return inside !== '' && !inside.startsWith('..') && !isAbsolute(inside) ? inside.split('\\').join('/') : path;
  };
  if (packageDir === null || !files.exists(join(packageDir, 'package.json')))
    return { missing: 'the electron package is not installed (node_modules/electron is missing); run `npm install`' };
  const pathTxt = join(packageDir, 'path.txt');
  const override = env.ELECTRON_OVERRIDE_DIST_PATH || null;
  const named = files.read(pathTxt);
  let binary;
  if (named === null && override === null) {
    const dist = join(packageDir, 'dist');
    if (!files.exists(dist)) {
      const skipped = env.ELECTRON_SKIP_BINARY_DOWNLOAD
        ? 'installed with ELECTRON_SKIP_BINARY_DOWNLOAD=1, which is set here'
        : 'its download was skipped with ELECTRON_SKIP_BINARY_DOWNLOAD=1, or failed, when it was installed';
      return { missing: `no Electron binary: ${shown(dist)} is missing (${skipped}); ${reinstall}` };
    }
    return { missing: `no Electron binary: ${shown(pathTxt)} is missing though dist/ is there (an install that stopped); ${reinstall}` };
  }
  if (named !== null) {
    const checked = pathTxtSchema.safeParse(named);
    if (!checked.success)
      return { missing: `${shown(pathTxt)} is broken: ${checked.error.issues[0]?.message ?? 'it is not a path'}; ${reinstall}` };
    binary = override === null ? join(packageDir, 'dist', checked.data) : join(override, checked.data);
  } else {
    binary = join(override, 'electron');
  }
  const by = override === null ? `named by ${shown(pathTxt)}` : `in ELECTRON_OVERRIDE_DIST_PATH=${override}`;
  if (!files.exists(binary)) return { missing: `no Electron binary at ${shown(binary)} (${by}); ${reinstall}` };
  if (platform !== 'win32' && !files.executable(binary))
    return { missing: `the Electron binary at ${shown(binary)} (${by}) cannot be run: it is not executable` };
  return { path: binary };
}

/**
 * What the window is shown on: nothing more where the system has a screen (macOS, Windows, a Linux desktop with
 * DISPLAY or WAYLAND_DISPLAY), xvfb-run's virtual one on a Linux without, or why there is none. `{ wrapper }` is the
 * command line prefix to run the suite with; `{ missing }` says what to install.
 */
export function electronDisplay({ env = process.env, platform = process.platform, hasProgram = installed } = {}) {
  if (platform !== 'linux' || env.DISPLAY || env.WAYLAND_DISPLAY) return { wrapper: [] };
  if (hasProgram('xvfb-run')) return { wrapper: ['xvfb-run', '--auto-servernum', '--server-args=-screen 0 1920x1080x24'] };
  return {
    missing:
      "no display for Electron's window: DISPLAY and WAYLAND_DISPLAY are unset and xvfb-run is not installed (sudo apt-get install xvfb)",
  };
}

/**
 * Whether the smoke suite can run here: `{ ready: true, binary, wrapper }`, or `{ ready: false, reason }` with the
 * first thing missing. The options are those of `findElectronBinary` and `electronDisplay`.
 */
export function electronSmokeReadiness(options = {}) {
  const binary = findElectronBinary(options);
  if ('missing' in binary) return { ready: false, reason: binary.missing };
  const display = electronDisplay(options);
  if ('missing' in display) return { ready: false, reason: display.missing };
  return { ready: true, binary: binary.path, wrapper: display.wrapper };
}

/** What `npm run test:electron` prints where the suite could not run. */
export function notRunLines(reason) {
  return [
    `The Electron smoke suite was NOT run: ${reason}.`,
    `It does not count as passed: npm run test:electron exits with status ${notRunStatus} (not run), not 0.`,
  ];
}
