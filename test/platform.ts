/**
 * What the tests need from the machine beyond Node, each declared once with the reason a test that needs it does not
 * run where it is missing. A test or suite names what it needs with `needs(...)`, passed as vitest's options:
 *
 *   it('blocks the network unless granted', needs(bubblewrap), async () => { ... });
 *   describe('workspace files', needs(procFs, symlinks), () => { ... });
 *
 * Where something is missing the test is skipped, and the reason goes into the test's `meta`, which vitest's JSON
 * report keeps: `scripts/test.mjs` reads it there and lists the skipped tests by reason. A skipped test without
 * such a reason counts as failed, so a skip can only come from here. Under WORKBENCH_TESTS_STRICT=1 (CI, whose
 * machine has everything) these skips count as failed too, so a broken install cannot hide a test.
 *
 * Each check runs only when a test file first asks for it (most files need none), and at most once per file.
 * WORKBENCH_TEST_ASSUME_NO=bubblewrap,ripgrep makes the named capabilities count as missing, to see a run as a
 * machine without them would have it.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TestOptions } from 'vitest';
import { electronSmokeReadiness, findElectronBinary } from '../scripts/electron-smoke.mjs';
import { detectSandbox } from '../src/main/tools/sandbox';
import { findRipgrep } from '../src/main/tools/search';

/** Why a test did not run: what it needs, and why that is missing here. Kept in the test's meta for the summary. */
export interface MissingCapability {
  readonly capability: string;
  readonly reason: string;
  /**
   * Not a lack of this machine's install: left out on purpose by a setting of its own (the Electron binary under
   * ELECTRON_SKIP_BINARY_DOWNLOAD=1), or another operating system's (Windows' junctions on Linux). Listed as not run
   * even under WORKBENCH_TESTS_STRICT=1, where other skips fail: no install could give them here.
   */
  readonly declared?: true;
}

declare module 'vitest' {
  interface TaskMeta {
    /** Set on a test (or suite) skipped because the machine lacks what it needs; read by `scripts/test.mjs`. */
    missingCapabilities?: readonly MissingCapability[];
  }
}

/** Something a test needs from the machine. */
export interface Capability {
  /** A short name, as WORKBENCH_TEST_ASSUME_NO takes it. */
  readonly name: string;
  /** What it is, in words. */
  readonly what: string;
  /** Why a test that needs it does not run here, or null where it is present. Checked on first use. */
  readonly missing: () => string | null;
  /** Whether, where it is missing, the install left it out on purpose and says so (see `MissingCapability.declared`). */
  readonly declared?: () => boolean;
}

const assumedMissing = new Set(
  (process.env['WORKBENCH_TEST_ASSUME_NO'] ?? '')
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== ''),
);
const declared = new Set<string>();

/** Declares a capability: its name, what it is, and `check`, which answers why it is missing, or null when it is present. */
export function capability(name: string, what: string, check: () => string | null): Capability {
  declared.add(name);
  let answer: { readonly reason: string | null } | undefined;
  return {
    name,
    what,
    missing: () => {
      answer ??= { reason: assumedMissing.has(name) ? `${what} taken as missing (WORKBENCH_TEST_ASSUME_NO)` : check() };
      return answer.reason;
    },
  };
}

/** Whether a program is on this machine's PATH: it starts when run with `args` (which should do nothing), whatever it answers. */
function installed(program: string, args: readonly string[]): boolean {
  return spawnSync(program, args, { stdio: 'ignore', timeout: 5_000 }).error === undefined;
}

const onWindows = process.platform === 'win32';

/** An OS sandbox for commands (bubblewrap on Linux, Seatbelt on macOS), without which nothing escalates past it. */
export const osSandbox = capability('sandbox', 'an OS sandbox for commands', () => {
  const sandbox = detectSandbox();
  return sandbox.available ? null : sandbox.reason;
});

/** The Linux sandbox, checked the way the app checks it (by making one: user namespaces may be off). */
export const bubblewrap = capability('bubblewrap', 'the Linux sandbox (bubblewrap)', () => {
  if (process.platform !== 'linux') return 'the Linux sandbox (bubblewrap) runs on Linux only';
  const sandbox = detectSandbox();
  return sandbox.available ? null : sandbox.reason;
});

/** ripgrep, which `search` uses when it is installed. */
export const ripgrep = capability('ripgrep', 'ripgrep (rg)', () => (findRipgrep() === null ? 'ripgrep (rg) is not installed' : null));

/** bash at /bin/bash, which `run_command` runs every command with, and the POSIX tools the tests' commands use. */
export const bash = capability('bash', '/bin/bash', () =>
  !onWindows && existsSync('/bin/bash') ? null : 'run_command runs its commands with /bin/bash, which this system lacks',
);

/** GNU sed, whose `sed -i` edits in place without a backup suffix (BSD's, on macOS, takes the script for one). */
export const gnuSed = capability('gnu-sed', 'GNU sed', () =>
  spawnSync('sed', ['--version'], { stdio: 'ignore' }).status === 0 ? null : "the tests' commands edit files with GNU sed's `sed -i`",
);

/** pgrep, with which tests check that a stopped command left no process behind. */
export const pgrep = capability('pgrep', 'pgrep', () =>
  installed('pgrep', ['-x', 'no-such-process']) ? null : 'pgrep (procps) is not installed: the tests look for leftover processes with it',
);

/**
 * Linux's /proc: the workspace's folder walk through /proc/self/fd (the app's way on Linux, whose race-free moves and
 * writes these tests check), and the counts of open descriptors and child processes that leak checks read.
 */
export const procFs = capability('proc', 'the /proc file system', () =>
  existsSync('/proc/self/fd')
    ? null
    : 'there is no /proc here (Linux only): these tests check the folder walk through /proc/self/fd, or count what a process holds there',
);

/**
 * A folder walk that a link swapped in meanwhile cannot lead outside: through /proc/self/fd on Linux, with
 * O_NOFOLLOW_ANY on macOS. Elsewhere names are checked before use, which narrows the race but does not close it.
 */
export const raceFreeWalk = capability('race-free-walk', 'a folder walk that closes the race with a swapped-in link', () =>
  (process.platform === 'linux' && existsSync('/proc/self/fd')) || process.platform === 'darwin'
    ? null
    : 'here the workspace checks names before use, which narrows a race with a link swapped in but does not close it',
);

/** Windows itself: its junctions, reparse points and file indexes, which the open-then-check walk is built for. */
export const windows: Capability = {
  ...capability('windows', 'Windows', () =>
    onWindows ? null : 'these tests make junctions and check file indexes on NTFS, which only Windows has',
  ),
  // Another system's, which no install gives this one: not run here even in strict mode, never counted as passed.
  declared: () => !onWindows,
};

/** macOS itself: its `O_NOFOLLOW_ANY`, which the workspace walk opens every name with there. */
export const macos: Capability = {
  ...capability('macos', 'macOS', () =>
    process.platform === 'darwin' ? null : 'these tests open paths with O_NOFOLLOW_ANY, which only the macOS kernel has',
  ),
  declared: () => process.platform !== 'darwin',
};

/** The macOS SDK's C headers (Xcode or its Command Line Tools), where `O_NOFOLLOW_ANY` is defined. */
export const macOsHeaders: Capability = {
  ...capability('macos-headers', "the macOS SDK's headers", () => {
    if (process.platform !== 'darwin') return "the macOS SDK's headers are found with xcrun, on macOS only";
    return macOsHeader('sys/fcntl.h') === null ? 'xcrun finds no macOS SDK with sys/fcntl.h (install the Command Line Tools)' : null;
  }),
  // On macOS without the Command Line Tools it is the install's lack, and strict mode fails it.
  declared: () => process.platform !== 'darwin',
};

/** The path of a header in the macOS SDK, or null where there is none. */
export function macOsHeader(name: string): string | null {
  const sdk = spawnSync('xcrun', ['--show-sdk-path'], { encoding: 'utf8', timeout: 10_000 });
  if (sdk.status !== 0) return null;
  const path = join(sdk.stdout.trim(), 'usr', 'include', name);
  return existsSync(path) ? path : null;
}

/** Symbolic links, which Windows lets only administrators and Developer Mode make: checked by making one. */
export const symlinks = capability('symlinks', 'symbolic links', () => {
  const folder = mkdtempSync(join(tmpdir(), 'workbench-link-check-'));
  try {
    symlinkSync('target', join(folder, 'link'));
    return null;
  } catch (error) {
    return `this user cannot make symbolic links here (${(error as NodeJS.ErrnoException).code ?? String(error)})`;
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
});

/** POSIX files: permission bits, setuid, setgid and sticky bits kept, and any byte but / and NUL allowed in a name. */
export const posixFiles = capability('posix-files', 'POSIX file modes and names', () =>
  onWindows ? 'Windows keeps no POSIX file modes (permission bits, setuid) and refuses some names (a newline, a colon)' : null,
);

/** Named pipes and Unix sockets as files in a folder, which the path checks must refuse. */
export const specialFiles = capability('special-files', 'named pipes and Unix sockets', () =>
  !onWindows && installed('mkfifo', ['--version']) ? null : 'named pipes (mkfifo) and Unix sockets in folders are POSIX only',
);

/**
 * A user the kernel holds to a process limit, for the app's side of a command under one: the tests' own user, or,
 * where they run as root (whom no process limit holds), nobody through setpriv, which must be able to read the tests.
 */
export const ordinaryUser = capability('ordinary-user', 'a user held to process limits', () => {
  if (process.getuid?.() !== 0) return null;
  const asNobody = spawnSync('setpriv', ['--reuid=65534', '--regid=65534', '--clear-groups', 'test', '-r', fileURLToPath(import.meta.url)]);
  return asNobody.status === 0 ? null : 'the tests run as root, whom no process limit holds, and setpriv cannot run them as nobody';
});

/** electron-builder's Linux target: its stand-in Electron folder has Linux's layout. */
export const linuxPackage = capability('linux-package', "electron-builder's Linux target", () =>
  process.platform === 'linux' ? null : "the archive is built with a stand-in Electron of Linux's layout, on Linux only",
);

/**
 * node-llama-cpp trying a prebuilt llama.cpp binary in a process of its own before loading it: on Linux always, on
 * Windows for GPU builds only (which the tests do not load), on macOS never.
 */
export const llamaBinaryTest = capability('llama-binary-test', "node-llama-cpp's binary test before loading", () =>
  process.platform === 'linux'
    ? null
    : 'node-llama-cpp tries its prebuilt binary in a process of its own before loading it on Linux (on Windows for GPU builds only)',
);

/** A C compiler (`cc`) that makes shared libraries, for a native addon the tests write themselves. */
export const cCompiler = capability('cc', 'a C compiler (cc)', () =>
  !onWindows && spawnSync('cc', ['--version'], { stdio: 'ignore' }).status === 0
    ? null
    : 'there is no C compiler (cc) to build a test addon with',
);

/**
 * The real app in Electron (test/electron-smoke/): the `electron` package's binary, which an install with
 * ELECTRON_SKIP_BINARY_DOWNLOAD=1 leaves out, and on Linux a display for its window (or xvfb-run to make one).
 */
export const electronApp: Capability = {
  ...capability('electron', 'the Electron binary and a display', () => {
    const readiness = electronSmokeReadiness();
    if (!readiness.ready) return readiness.reason;
    // Started without the display xvfb-run would give it, the window would have nowhere to open.
    return readiness.wrapper.length === 0
      ? null
      : "no display for Electron's window here: run the suite with npm run test:electron, which starts it under xvfb-run";
  }),
  // CI installs with ELECTRON_SKIP_BINARY_DOWNLOAD=1 because the binary cannot be downloaded there (design, section 9):
  // that binary missing is the install's choice, not a need the machine failed to meet. A display missing is not.
  declared: () => Boolean(process.env['ELECTRON_SKIP_BINARY_DOWNLOAD']) && !('path' in findElectronBinary()),
};

/**
 * Options for `it`, `describe` and their `.each` that skip the test or suite where any of the capabilities is
 * missing, with the reasons in its meta. Where everything is present they are empty: the test runs as written.
 */
export function needs(...wanted: readonly Capability[]): TestOptions {
  const missing = wanted.flatMap((want): MissingCapability[] => {
    const reason = want.missing();
    if (reason === null) return [];
    return [{ capability: want.name, reason, ...(want.declared?.() === true ? { declared: true as const } : {}) }];
  });
  // No meta at all where nothing is missing: a test's own meta replaces its suite's, which may hold the suite's reasons.
  return missing.length === 0 ? {} : { skip: true, meta: { missingCapabilities: missing } };
}

/** Whether every capability is present here: for shared setup that makes what only some tests use, each of which `needs` it. */
export function present(...wanted: readonly Capability[]): boolean {
  return wanted.every((want) => want.missing() === null);
}

const unknown = [...assumedMissing].filter((name) => !declared.has(name));
if (unknown.length > 0)
  throw new Error(`WORKBENCH_TEST_ASSUME_NO names no capability: ${unknown.join(', ')} (known: ${[...declared].join(', ')})`);
