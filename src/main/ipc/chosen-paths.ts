/*
 * The paths the person chose: what main's own dialogs returned, what was dropped on the window (told by the preload,
 * never by the page), and what the app was launched with. A path the window names for main to open or read must be
 * one of them, or a workspace a session already has: a page that went wrong cannot point the agent at another folder,
 * or have main read a file of its choosing.
 */

import { realpathSync } from 'node:fs';
import { resolve } from 'node:path';
import { BoundedMap } from '../../shared/bounded-map';
import { WorkbenchError } from '../../shared/errors';
import { comparablePath, ignoresCase } from '../workspace/path-case';

/** How a refused path was meant to be chosen, for the message. */
export type PathKind = 'folder' | 'model file';

export class ChosenPaths {
  /** The paths chosen in this run of the app, newest kept: a person chooses a handful. */
  private readonly chosen = new BoundedMap<string, true>({ max: 256 });

  /** Notes a path the person chose (a dialog's answer, a drop, a launch): as given, and where its links lead. */
  remember(path: string): void {
    this.chosen.set(this.key(path), true);
    try {
      this.chosen.set(this.key(realpathSync.native(path)), true);
    } catch {
      // Not there (yet): the path as given is what can be named.
    }
  }

  /** Whether the person chose this path, or it is one of `known` (the workspaces sessions have). */
  has(path: string, known: Iterable<string> = []): boolean {
    const key = this.key(path);
    if (this.chosen.get(key)) return true;
    for (const other of known) if (this.key(other) === key) return true;
    return false;
  }

  /** Throws a typed error, changing nothing, for a path the person did not choose. */
  require(path: string, kind: PathKind, known: Iterable<string> = []): void {
    if (this.has(path, known)) return;
    throw new WorkbenchError(
      'path_not_chosen',
      kind === 'folder'
        ? 'That folder was not chosen in the app: choose it with “Choose folder…”, drop it on the window, or open it from the recent folders.'
        : 'That model file was not chosen in the app: pick it with “Choose a GGUF file…”.',
    );
  }

  private key(path: string): string {
    const absolute = resolve(path);
    return comparablePath(absolute, ignoresCase(absolute));
  }
}
