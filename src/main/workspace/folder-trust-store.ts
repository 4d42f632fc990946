/*
 * The person's trust in folders, kept in a small JSON file of the data folder that may be read and edited by hand.
 */

import { randomBytes } from 'node:crypto';
import { closeSync, fsyncSync, mkdirSync, openSync, readFileSync, realpathSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';
import { InvalidInputError } from '../../shared/errors';
import {
  folderTrustFileSchema,
  maxFolderTrustEntries,
  type FolderTrustDecision,
  type FolderTrustEntry,
  type FolderTrustList,
  type FolderTrustState,
  type ReleasedFile,
} from '../../shared/folder-trust';
import type { FolderTrustSource } from '../agent/ports/folder-trust';
import { isWithin, samePath } from './path-case';

/** A folder's real path where it can be found (links followed), else the path as given. */
function realFolder(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

/** Whether an entry's decision covers a folder: its own folder, or (a tree) any folder under it too. */
const covers = (entry: FolderTrustEntry, folder: string): boolean =>
  entry.scope === 'tree' ? isWithin(entry.path, folder) : samePath(entry.path, folder);

/**
 * The trust file: read again whenever it changed on disk (the person may edit it while the app runs), written whole
 * through a file beside it and a rename, so a crash leaves the old file or the new one. A file that cannot be used
 * (not JSON, not of the schema) trusts nothing: every folder runs restricted, the problem is said in Settings, and the
 * file is left as it is until the person decides again, when it is set aside (never deleted) and a new one written.
 */
export class FolderTrustStore implements FolderTrustSource {
  private entries: FolderTrustEntry[] = [];
  private released: ReleasedFile[] = [];
  private problem: string | null = null;
  /** The size and time of the file as last read; null when there was none. */
  private seen: string | null = null;
  private loaded = false;

  constructor(
    readonly file: string,
    private readonly now: () => number = Date.now,
    /** The folder a workspace stands for: a worktree the app made stands for the folder it was made from. */
    private readonly standsFor: (workspacePath: string) => string = (path) => path,
    /**
     * Folders never trusted as a parent from the prompt, where anyone (the temporary folder) or the app (its data, its
     * worktrees) makes folders: trusting one would trust what others put there. The root is never one either.
     */
    private readonly refusedParents: readonly string[] = [],
  ) {}

  /** The parent of a workspace's folder that the prompt may offer to trust, or null where none may be. */
  parentOf(workspacePath: string): string | null {
    const folder = realFolder(this.standsFor(workspacePath));
    const parent = dirname(folder);
    if (parent === folder || dirname(parent) === parent) return null;
    return this.refusedParents.some((refused) => samePath(realFolder(refused), parent)) ? null : parent;
  }

  stateOf(workspacePath: string): FolderTrustState {
    this.refresh();
    const folder = realFolder(this.standsFor(workspacePath));
    const by = this.nearest(folder);
    return { path: folder, trusted: by?.trusted === true, decided: by !== null, by, parent: this.parentOf(folder) };
  }

  list(): FolderTrustList {
    this.refresh();
    return { folders: [...this.entries], problem: this.problem, file: this.file };
  }

  /** The person's answer at the trust prompt for a workspace folder. */
  decide(workspacePath: string, decision: FolderTrustDecision): FolderTrustState {
    this.refresh();
    const folder = realFolder(this.standsFor(workspacePath));
    const at = this.now();
    if (decision === 'trust_parent') {
      const parent = this.parentOf(folder);
      if (parent === null)
        throw new InvalidInputError(`The folder above ${folder} cannot be trusted as a whole: trust this folder alone instead.`);
      // Trusting the parent trusts this folder: a decision of its own not to (for it, or for everything under it) is taken back.
      this.save(
        [...this.entries.filter((entry) => !samePath(entry.path, folder) && !sameEntry(entry, parent, 'tree'))].concat({
          path: parent,
          trusted: true,
          scope: 'tree',
          decidedAt: at,
        }),
      );
    } else {
      this.put({ path: folder, trusted: decision === 'trust', scope: 'folder' });
    }
    return this.stateOf(folder);
  }

  /** Adds or replaces the decision for a folder (and, as a tree, the folders under it). */
  put(entry: Omit<FolderTrustEntry, 'decidedAt'>): void {
    this.refresh();
    const path = realFolder(entry.path);
    this.save([...this.entries.filter((other) => !sameEntry(other, path, entry.scope)), { ...entry, path, decidedAt: this.now() }]);
  }

  /** Takes back a decision: the folder is asked about again at its next use. */
  forget(path: string, scope: FolderTrustEntry['scope']): void {
    this.refresh();
    const kept = this.entries.filter((entry) => !sameEntry(entry, path, scope));
    if (kept.length === this.entries.length) throw new InvalidInputError(`No decision is kept for ${path}.`);
    this.save(kept);
  }

  isReleased(path: string, sha256: string): boolean {
    this.refresh();
    return this.released.some((file) => file.sha256 === sha256 && samePath(file.path, path));
  }

  /** Lets the model have an instruction file (its absolute path) with this content, though it carries signs of an injection. */
  release(path: string, sha256: string): void {
    this.refresh();
    const kept = this.released.filter((file) => !samePath(file.path, path));
    this.save(this.entries, [...kept, { path, sha256, releasedAt: this.now() }]);
  }

  /** The decision that counts for a folder: the one of the nearest folder; for the same folder, its own over a tree's. */
  private nearest(folder: string): FolderTrustEntry | null {
    let best: FolderTrustEntry | null = null;
    for (const entry of this.entries) {
      if (!covers(entry, folder)) continue;
      if (
        best === null ||
        entry.path.length > best.path.length ||
        (entry.path.length === best.path.length && entry.scope === 'folder' && best.scope === 'tree')
      )
        best = entry;
    }
    return best;
  }

  /** Reads the file again if it changed on disk since it was last read; whether it had. */
  refresh(): boolean {
    let stamp: string | null;
    try {
      const info = statSync(this.file);
      stamp = `${info.size}:${info.mtimeMs}:${info.ino}`;
    } catch {
      stamp = null;
    }
    if (this.loaded && stamp === this.seen) return false;
    this.loaded = true;
    this.seen = stamp;
    if (stamp === null) {
      this.entries = [];
      this.released = [];
      this.problem = null;
      return true;
    }
    let raw: unknown;
    try {
      raw = JSON.parse(readFileSync(this.file, 'utf8'));
    } catch (error) {
      this.unusable(`it is not JSON (${(error as Error).message})`);
      return true;
    }
    const parsed = folderTrustFileSchema.safeParse(raw);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      this.unusable(`${issue?.path.join('.') || 'the file'}: ${issue?.message ?? 'not as expected'}`);
      return true;
    }
    // A path written by hand is taken as a whole path, without a trailing separator or a `..`: `/a/` is the folder `/a`.
    const relative = [...parsed.data.folders, ...parsed.data.released].find((entry) => !isAbsolute(entry.path));
    if (relative) {
      this.unusable(`${JSON.stringify(relative.path)} is not a whole path from the root`);
      return true;
    }
    this.entries = parsed.data.folders.map((entry) => ({ ...entry, path: resolve(entry.path) }));
    this.released = parsed.data.released.map((file) => ({ ...file, path: resolve(file.path) }));
    this.problem = null;
    return true;
  }

  private unusable(why: string): void {
    this.entries = [];
    this.released = [];
    this.problem = `The folder trust file ${this.file} could not be used (${why}), so no folder is trusted. It was left as it is; a new decision sets it aside and writes a new one.`;
  }

  private save(entries: FolderTrustEntry[], released: ReleasedFile[] = this.released): void {
    if (entries.length > maxFolderTrustEntries)
      throw new InvalidInputError(`At most ${maxFolderTrustEntries} folders are kept: take back some decisions in Settings first.`);
    // The oldest files let through are forgotten first: held back again, they are asked about again.
    const kept = released.slice(-maxFolderTrustEntries);
    mkdirSync(dirname(this.file), { recursive: true });
    if (this.problem !== null) renameSync(this.file, `${this.file}.invalid-${this.now()}`);
    const text = `${JSON.stringify({ version: 1, folders: entries, released: kept }, null, 2)}\n`;
    // A name of its own, so two processes on one data folder (the app, the terminal runner) never write one partial file.
    const partial = `${this.file}.${process.pid}-${randomBytes(4).toString('hex')}.partial`;
    const fd = openSync(partial, 'w', 0o600);
    try {
      writeFileSync(fd, text);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(partial, this.file);
    this.loaded = false;
    this.refresh();
  }
}

function sameEntry(entry: FolderTrustEntry, path: string, scope: FolderTrustEntry['scope']): boolean {
  return entry.scope === scope && samePath(entry.path, path);
}
