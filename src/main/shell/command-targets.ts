/*
 * Where a path a command writes lands: inside the workspace, in a sandbox's scratch folder, on a harmless device, in a
 * protected place, or outside.
 */

import { lstatSync, realpathSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { protectedReason } from '../workspace/workspace-paths';
import type { ShellValue } from './shell-state';
import { comparablePath, ignoresCase, isWithin } from '../workspace/path-case';

/** Where a command runs, which decides where its writes land. */
export interface CommandPlace {
  readonly workspace: string | null;
  /** The OS sandbox the command runs in, if any: it confines what a computed path can reach and gives private temporary folders. */
  readonly sandbox: 'bubblewrap' | 'seatbelt' | null;
  /** Folders inside a workspace that commands must not write (the app's data). */
  readonly protectedFolders?: readonly string[];
  /** The person's home folder and name, for `~` and `$HOME`. */
  readonly home: string;
  readonly user: string;
  /**
   * The programs the git repository at a folder names in its own files (its configuration, its hooks), which a git
   * command run there would start; absent where that is not looked at (no git). Asked only for lines that run git.
   */
  readonly repositoryPrograms?: (folder: string) => readonly RepositoryProgram[];
  /** The workspace is a folder the person does not trust: a program its repository names is destructive, sandbox or not. */
  readonly untrusted?: boolean;
  /** Whether the workspace's file system ignores letter case (`/Ws/x` is `/ws/x`); asked of the disk when absent. */
  readonly caseIgnored?: boolean;
}

/** A program a repository names for git to run: a setting (`core.fsmonitor`) or a hook (`hooks/pre-commit`). */
export interface RepositoryProgram {
  /** Where the repository names it, as the person would look for it. */
  readonly source: string;
  /** The git commands that start it, or every one. */
  readonly verbs: readonly string[] | 'every';
}

export type TargetKind = 'inside' | 'scratch' | 'harmless' | 'outside' | 'protected';

export interface TargetPlace {
  readonly kind: TargetKind;
  /** The absolute path, or the reason it is protected. */
  readonly detail: string;
}

const harmless = /^(\/dev\/(null|stdout|stderr|tty|zero|fd\/\d+)|\/proc\/self\/fd\/\d+|-)$/;

/** Temporary folders each sandbox lets commands write: private to the command with bubblewrap, the system's with Seatbelt. */
const scratchFolders: Readonly<Record<'bubblewrap' | 'seatbelt', readonly string[]>> = {
  bubblewrap: ['/tmp'],
  seatbelt: ['/tmp', '/private/tmp', '/private/var/folders', '/var/folders'],
};

/** The path with links resolved in the part of it that exists, so a link inside that leads out is seen as out. */
function realOf(path: string): string {
  let existing = path;
  const missing: string[] = [];
  for (let steps = 0; steps < 64; steps += 1) {
    // No exceptions on the way: a missing path is the common case, and building an error for each costs more than the call.
    if (lstatSync(existing, { throwIfNoEntry: false }) !== undefined) {
      try {
        return join(realpathSync.native(existing), ...missing);
      } catch {
        // A loop of links, or a link to nothing: judged by what is written.
        return path;
      }
    }
    const parent = dirname(existing);
    if (parent === existing) break;
    missing.unshift(existing.slice(parent.length).replace(/^\//, ''));
    existing = parent;
  }
  return path;
}

/** The part of a path before its first segment with pattern characters: what a pattern can match stays under it. */
function beforePattern(path: string, glob: boolean): string {
  if (!glob) return path;
  const segments = path.split('/');
  const first = segments.findIndex((segment) => /[*?[]/.test(segment));
  return first === -1 ? path : segments.slice(0, first).join('/') || '/';
}

/**
 * Judges where paths land for one workspace, caching the workspace's own real path. A path is inside
 * when it is inside both as written and with its links resolved; the sandbox's temporary folders are
 * scratch; `/dev/null` and the like are harmless; anything else is outside.
 */
export class TargetJudge {
  private readonly roots: readonly string[];
  private readonly scratch: readonly string[];
  /** By the workspace's file system's case rules: on macOS and Windows `/Users/me/WS/.git` is the workspace's `.git`. */
  private readonly within: (root: string, candidate: string) => boolean;
  private readonly comparable: (path: string) => string;

  constructor(private readonly place: CommandPlace) {
    const workspace = place.workspace;
    this.roots = workspace === null ? [] : [...new Set([resolve(workspace), realOf(resolve(workspace))])];
    this.scratch = place.sandbox ? scratchFolders[place.sandbox] : [];
    const caseIgnored = place.caseIgnored ?? (workspace === null ? false : ignoresCase(resolve(workspace)));
    this.within = (root, candidate) => isWithin(root, candidate, caseIgnored);
    this.comparable = (path) => comparablePath(path, caseIgnored);
  }

  /** Where one value of a written path lands, run from the folder `cwd`. */
  judge(value: ShellValue, cwd: string): TargetPlace {
    if (harmless.test(value.text)) return { kind: 'harmless', detail: value.text };
    const absolute = resolve(cwd, value.text);
    const checked = beforePattern(absolute, value.glob);
    const root = this.roots.find((candidate) => this.within(candidate, checked));
    if (root !== undefined) {
      const real = realOf(checked);
      if (!this.roots.some((candidate) => this.within(candidate, real)))
        return { kind: 'outside', detail: `${absolute} (a link leads out)` };
      // Compared as the file system compares (in one case where it ignores case): `protectedReason` ignores case too.
      const relativePath = relative(this.comparable(root), this.comparable(absolute)).split(sep).join('/');
      const reason = protectedReason(relativePath);
      if (reason) return { kind: 'protected', detail: reason };
      if ((this.place.protectedFolders ?? []).some((folder) => this.within(resolve(folder), absolute)))
        return { kind: 'protected', detail: "it is the app's own data" };
      return { kind: 'inside', detail: absolute };
    }
    if (this.scratch.some((folder) => this.within(folder, checked))) return { kind: 'scratch', detail: absolute };
    return { kind: 'outside', detail: absolute };
  }
}
