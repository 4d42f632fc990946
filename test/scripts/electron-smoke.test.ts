import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import {
  electronDisplay,
  electronSmokeReadiness,
  findElectronBinary,
  notRunStatus,
  type SmokeFiles,
} from '../../scripts/electron-smoke.mjs';
import { temporaryFolder } from '../helpers';

const projectRoot = fileURLToPath(new URL('../..', import.meta.url));
const root = '/repo';
const packageDir = '/repo/node_modules/electron';
const reinstall = 'run `npm rebuild electron` with ELECTRON_SKIP_BINARY_DOWNLOAD unset, or reinstall without it';

/** A file system of these files (path to text) and folders; `notExecutable` names files that cannot be run. */
function filesOf(files: Record<string, string>, folders: readonly string[] = [], notExecutable: readonly string[] = []): SmokeFiles {
  return {
    exists: (path) => path in files || folders.includes(path),
    read: (path) => files[path] ?? null,
    executable: (path) => path in files && !notExecutable.includes(path),
  };
}

/** The package as an install with its binary leaves it. */
const installedPackage = {
  '/repo/node_modules/electron/package.json': '{}',
  '/repo/node_modules/electron/path.txt': 'electron',
  '/repo/node_modules/electron/dist/electron': '',
};
const withoutBinary = { '/repo/node_modules/electron/package.json': '{}' };
const linux = { packageDir, root, platform: 'linux' as const, env: {} };

describe('finding the Electron binary the smoke suite starts', () => {
  it('finds the binary path.txt names under dist/, as the package itself does', () => {
    expect(findElectronBinary({ ...linux, files: filesOf(installedPackage) })).toEqual({
      path: '/repo/node_modules/electron/dist/electron',
    });
  });

  it('says the binary was never downloaded where dist/ is missing, and how to get it', () => {
    expect(findElectronBinary({ ...linux, files: filesOf(withoutBinary) })).toEqual({
      missing: `no Electron binary: node_modules/electron/dist is missing (its download was skipped with ELECTRON_SKIP_BINARY_DOWNLOAD=1, or failed, when it was installed); ${reinstall}`,
    });
    expect(findElectronBinary({ ...linux, env: { ELECTRON_SKIP_BINARY_DOWNLOAD: '1' }, files: filesOf(withoutBinary) })).toEqual({
      missing: `no Electron binary: node_modules/electron/dist is missing (installed with ELECTRON_SKIP_BINARY_DOWNLOAD=1, which is set here); ${reinstall}`,
    });
  });

  it('says an install stopped where dist/ is there without path.txt', () => {
    const found = findElectronBinary({ ...linux, files: filesOf(withoutBinary, ['/repo/node_modules/electron/dist']) });
    expect(found).toEqual({
      missing: `no Electron binary: node_modules/electron/path.txt is missing though dist/ is there (an install that stopped); ${reinstall}`,
    });
  });

  it('names a broken path.txt and what is wrong with it: empty, a line break, an absolute path, a file that is not there', () => {
    const pathTxt = '/repo/node_modules/electron/path.txt';
    const broken = [
      ['', 'node_modules/electron/path.txt is broken: it is empty'],
      ['electron\n', 'node_modules/electron/path.txt is broken: it holds a line break or a NUL'],
      ['/usr/bin/electron', 'node_modules/electron/path.txt is broken: it names an absolute path rather than one inside dist/'],
      ['electron-old', 'no Electron binary at node_modules/electron/dist/electron-old (named by node_modules/electron/path.txt)'],
    ] as const;
    for (const [written, why] of broken) {
      const found = findElectronBinary({ ...linux, files: filesOf({ ...installedPackage, [pathTxt]: written }) });
      expect(found).toEqual({ missing: `${why}; ${reinstall}` });
    }
  });

  it('refuses a binary that cannot be run, except on Windows, which has no such bit', () => {
    const files = filesOf(installedPackage, [], ['/repo/node_modules/electron/dist/electron']);
    expect(findElectronBinary({ ...linux, files })).toEqual({
      missing:
        'the Electron binary at node_modules/electron/dist/electron (named by node_modules/electron/path.txt) cannot be run: it is not executable',
    });
    expect(findElectronBinary({ ...linux, platform: 'win32', files })).toEqual({ path: '/repo/node_modules/electron/dist/electron' });
  });

  it('looks in ELECTRON_OVERRIDE_DIST_PATH when it is set, with or without path.txt', () => {
    const override = { ELECTRON_OVERRIDE_DIST_PATH: '/opt/electron' };
    expect(findElectronBinary({ ...linux, env: override, files: filesOf({ ...withoutBinary, '/opt/electron/electron': '' }) })).toEqual({
      path: '/opt/electron/electron',
    });
    expect(findElectronBinary({ ...linux, env: override, files: filesOf(installedPackage) })).toEqual({
      missing: `no Electron binary at /opt/electron/electron (in ELECTRON_OVERRIDE_DIST_PATH=/opt/electron); ${reinstall}`,
    });
  });

  it('says so where the electron package itself is not installed', () => {
    const missing = { missing: 'the electron package is not installed (node_modules/electron is missing); run `npm install`' };
    expect(findElectronBinary({ ...linux, packageDir: null, files: filesOf({}) })).toEqual(missing);
    expect(findElectronBinary({ ...linux, files: filesOf({}) })).toEqual(missing);
  });
});

describe("the display for the smoke suite's window", () => {
  const none = (): boolean => false;
  const xvfb = (program: string): boolean => program === 'xvfb-run';

  it("uses the desktop's display, and needs none on macOS and Windows", () => {
    expect(electronDisplay({ platform: 'linux', env: { DISPLAY: ':0' }, hasProgram: none })).toEqual({ wrapper: [] });
    expect(electronDisplay({ platform: 'linux', env: { WAYLAND_DISPLAY: 'wayland-0' }, hasProgram: none })).toEqual({ wrapper: [] });
    expect(electronDisplay({ platform: 'darwin', env: {}, hasProgram: none })).toEqual({ wrapper: [] });
    expect(electronDisplay({ platform: 'win32', env: {}, hasProgram: none })).toEqual({ wrapper: [] });
  });

  it('runs the suite under xvfb-run on a Linux without a display, and says what to install where there is none', () => {
    expect(electronDisplay({ platform: 'linux', env: {}, hasProgram: xvfb })).toEqual({
      wrapper: ['xvfb-run', '--auto-servernum', '--server-args=-screen 0 1920x1080x24'],
    });
    expect(electronDisplay({ platform: 'linux', env: {}, hasProgram: none })).toEqual({
      missing:
        "no display for Electron's window: DISPLAY and WAYLAND_DISPLAY are unset and xvfb-run is not installed (sudo apt-get install xvfb)",
    });
  });

  it('is ready only with both the binary and a display, and gives the first reason otherwise', () => {
    const display = { env: { DISPLAY: ':1' }, hasProgram: none };
    expect(electronSmokeReadiness({ ...linux, ...display, files: filesOf(installedPackage) })).toEqual({
      ready: true,
      binary: '/repo/node_modules/electron/dist/electron',
      wrapper: [],
    });
    expect(electronSmokeReadiness({ ...linux, ...display, files: filesOf(withoutBinary) })).toMatchObject({
      ready: false,
      reason: expect.stringMatching(/^no Electron binary: node_modules\/electron\/dist is missing/),
    });
    expect(electronSmokeReadiness({ ...linux, hasProgram: none, files: filesOf(installedPackage) })).toMatchObject({
      ready: false,
      reason: expect.stringMatching(/^no display for Electron's window/),
    });
  });
});

describe('npm run test:electron where Electron cannot start', () => {
  const empty = temporaryFolder('workbench-no-electron-');
  afterAll(() => empty.remove());

  it('says the suite was not run and why, and exits with the not-run status, building nothing', () => {
    const run = spawnSync(process.execPath, ['scripts/test-electron.mjs'], {
      cwd: projectRoot,
      encoding: 'utf8',
      env: { ...process.env, ELECTRON_OVERRIDE_DIST_PATH: empty.path },
      timeout: 30_000,
    });
    expect(run.status).toBe(notRunStatus);
    expect(notRunStatus).toBe(77);
    expect(run.stderr).toContain(`The Electron smoke suite was NOT run: no Electron binary at ${join(empty.path, 'electron')}`);
    expect(run.stderr).toContain('exits with status 77 (not run), not 0');
    expect(run.stdout).not.toContain('Electron:');
  });
});
