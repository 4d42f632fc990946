/*
 * The folder or exported session a launch asks the app to open, read from its command line and held until the window
 * is ready.
 */

import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sessionFileSuffix } from '../../shared/session-export';

/** What a launch asks the app to open: a folder to work in, an exported session to import, or nothing. */
export type LaunchTarget = { readonly kind: 'folder'; readonly path: string } | { readonly kind: 'session-file'; readonly path: string };

export interface LaunchArgsContext {
  /** The folder relative paths are resolved against: the process's own, or the second instance's. */
  readonly workingDirectory: string;
  /**
   * True when the app runs from the `electron` binary with its path as the first argument (development,
   * Electron's `process.defaultApp`); that argument is then not something to open.
   */
  readonly defaultApp: boolean;
}

/**
 * What a command line asks to open: `agent-workbench /path/to/folder`, a session export given by the file
 * manager, or nothing. The executable (and the app's path in development) is skipped, and so is every switch
 * (`--no-sandbox`, `--inspect=9229`, the `-psn_0_123` macOS adds when launched from the Finder, the ones Chromium
 * appends to a second instance's line); after `--` every argument counts. `file://` URLs (a `.desktop` file's
 * `%U`) become paths; other URLs are ignored. The first argument left wins. Whether the path exists, and what
 * it is, is the core's to check (`openLaunchPath`): the name only guesses the kind.
 */
export function launchTarget(argv: readonly string[], context: LaunchArgsContext): LaunchTarget | null {
  const args = argv.slice(context.defaultApp ? 2 : 1);
  let switches = true;
  for (const arg of args) {
    if (switches && arg === '--') {
      switches = false;
      continue;
    }
    if (switches && arg.startsWith('-')) continue;
    const path = pathOf(arg, context.workingDirectory);
    if (path !== null) return targetFor(path);
  }
  return null;
}

/** The target a path names, by its name: a session export or (anything else) a folder. */
export function targetFor(path: string): LaunchTarget {
  return path.toLowerCase().endsWith(sessionFileSuffix) ? { kind: 'session-file', path } : { kind: 'folder', path };
}

function pathOf(arg: string, workingDirectory: string): string | null {
  if (arg.trim() === '') return null;
  if (/^file:\/\//i.test(arg)) {
    try {
      return fileURLToPath(arg);
    } catch {
      return null;
    }
  }
  // Another scheme (`https://…`, `x-scheme:…`) is not a path; a Windows drive (`C:\…`, one letter) is.
  if (/^[a-z][a-z0-9+.-]+:/i.test(arg)) return null;
  return resolve(workingDirectory, arg);
}

/**
 * Launch targets held until the app can open them: macOS sends `open-file` (a file or folder dropped on the
 * dock icon, or opened from the Finder) before `ready` too. Once `start` is called, queued targets are opened
 * in order and later ones at once.
 */
export class LaunchQueue {
  private pending: LaunchTarget[] = [];
  private open: ((target: LaunchTarget) => void) | null = null;

  push(target: LaunchTarget): void {
    if (this.open) this.open(target);
    else this.pending.push(target);
  }

  start(open: (target: LaunchTarget) => void): void {
    this.open = open;
    const pending = this.pending;
    this.pending = [];
    for (const target of pending) open(target);
  }
}
