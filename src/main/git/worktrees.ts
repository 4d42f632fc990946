/*
 * A session's own worktree: made from the person's repository in a folder the app owns, its changes brought back to
 * the person's folder file by file (a three-way merge where both changed a file, conflicts shown and never written
 * over), and removed.
 */

import { createHash } from 'node:crypto';
import { existsSync, lstatSync, mkdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { BringBackFile, BringBackPlan, BringBackResult, Worktree } from '../../shared/git';
import type { WorktreeMaker } from '../agent/ports/git';
import { WorkspaceFiles } from '../workspace/workspace-files';
import { protectedReason } from '../workspace/workspace-paths';
import { GitError, type GitProgram } from './git-program';
import { checkedBranch } from './git-commit';
import { findRepository, GitRepository } from './repository';

/** A plain file read from one side: its bytes and mode. */
interface Side {
  readonly data: Buffer;
  readonly mode: number;
}

/** What one side has at a path: a plain file, nothing, or something else (a link, a folder, a submodule), never followed. */
type Found = Side | null | 'other';

const isBinary = (data: Buffer): boolean => data.subarray(0, 8000).includes(0);
/** The same file on two sides: the same bytes, and the same mode where both modes are known. */
const same = (a: Found, b: Found, withMode = true): boolean =>
  a === null || a === 'other' || b === null || b === 'other'
    ? a === b && a !== 'other'
    : a.data.equals(b.data) && (!withMode || a.mode === b.mode);
const plain = (found: Found): found is Side => found !== null && found !== 'other';

function readSide(root: string, path: string): Found {
  const absolute = join(root, path);
  const found = lstatSync(absolute, { throwIfNoEntry: false });
  if (!found) return null;
  if (!found.isFile()) return 'other';
  return { data: readFileSync(absolute), mode: found.mode & 0o777 };
}

/** Makes and works with session worktrees of the person's repositories. */
export class Worktrees implements WorktreeMaker {
  constructor(
    private readonly git: GitProgram,
    /** The folder the app keeps worktrees in. */
    private readonly folder: string,
    /** Folders bringing back never writes into (the app's data). */
    private readonly protectedRoots: readonly string[] = [],
    /** Whether a folder is one the person does not trust: its repository's hooks and filters do not run for a new worktree. */
    private readonly restricted: (folder: string) => boolean = () => false,
  ) {}

  /**
   * A new branch checked out in a new folder of the app's, at the commit the person's folder has checked out. The
   * person's uncommitted changes stay where they are (a worktree starts from a commit). Returns it and the folder the
   * session works in (the same place inside it as the person's folder is in their repository).
   */
  async create(mainPath: string, name: string): Promise<{ worktree: Worktree; workspacePath: string }> {
    const place = await findRepository(this.git, mainPath);
    if (!place) throw new GitError('invalid_input', 'This folder is not in a git repository: a worktree needs one.');
    const main = new GitRepository(this.git, place, mainPath);
    const base = main.head().commit ?? (await main.run(['rev-parse', '--verify', '--quiet', 'HEAD'], { allowFailure: true })).trim();
    if (!base) throw new GitError('git_failed', 'The repository has no commit yet: commit once before giving a session its own worktree.');
    const branch = await checkedBranch(main, name);
    const exists = await main.runRaw(['show-ref', '--verify', '--quiet', `refs/heads/${branch}`], { allowFailure: true });
    if (exists.exitCode === 0) throw new GitError('git_failed', `A branch named ${branch} exists already.`);
    mkdirSync(this.folder, { recursive: true });
    const root = join(this.folder, branch.replace(/[^A-Za-z0-9._-]+/g, '-'));
    if (existsSync(root)) throw new GitError('git_failed', `The folder ${root} exists already.`);
    // Checkout hooks run, as for the person's own `git worktree add` (LFS fills its files that way); not those of a folder
    // the person has not trusted, whose hooks and filters are its own programs.
    const programs = this.restricted(mainPath) ? 'none' : 'hooks';
    await main.run(['worktree', 'add', '-b', branch, '--end-of-options', root, base], { programs, atRoot: true });
    const worktree: Worktree = { mainPath, mainRoot: place.root, root, branch, base };
    return { worktree, workspacePath: place.prefix === '' ? root : resolve(root, place.prefix) };
  }

  /** What bringing the worktree's changes back to the person's folder would do, file by file. */
  async plan(worktree: Worktree): Promise<BringBackPlan> {
    const repository = await this.repositoryAt(worktree.root);
    const changed = await this.changedPaths(repository, worktree.base);
    const files: BringBackFile[] = [];
    for (const { path, change } of changed) {
      const base = await this.baseSide(repository, worktree.base, path);
      const theirs = readSide(worktree.root, path);
      const ours = readSide(worktree.mainRoot, path);
      const refused = protectedReason(path);
      files.push({
        path,
        change,
        ...(refused && !same(ours, theirs)
          ? {
              outcome: 'conflict' as const,
              reason: `a file the agent may not write (${refused.replace(/\.$/, '')}): copy it over yourself`,
            }
          : await this.outcomeOf(base, ours, theirs)),
      });
    }
    return { files, fingerprint: await this.fingerprint(repository, worktree.base, changed) };
  }

  /**
   * Brings the worktree's changes back: files the person's folder has as the worktree started get the session's
   * version; files both changed are merged; a conflict is written with git's markers only when `withMarkers` (both
   * versions are then in the file, nothing lost), and otherwise left as it is. Never writes into `.git`.
   */
  async bringBack(worktree: Worktree, withMarkers: boolean): Promise<BringBackResult> {
    const plan = await this.plan(worktree);
    const files = new WorkspaceFiles(worktree.mainRoot, { protectedRoots: this.protectedRoots });
    const repository = await this.repositoryAt(worktree.root);
    const result: { [K in keyof Omit<BringBackResult, 'fingerprint'>]: string[] } = {
      written: [],
      deleted: [],
      merged: [],
      withMarkers: [],
      skipped: [],
    };
    for (const file of plan.files) {
      if (file.outcome === 'same') continue;
      try {
        const theirs = readSide(worktree.root, file.path);
        if (file.outcome === 'apply' && theirs !== 'other') {
          if (theirs === null) {
            if (files.removeFile(file.path)) result.deleted.push(file.path);
          } else {
            files.put(file.path, theirs.data, theirs.mode);
            result.written.push(file.path);
          }
          continue;
        }
        const base = await this.baseSide(repository, worktree.base, file.path);
        const ours = readSide(worktree.mainRoot, file.path);
        // Only text on all three sides is merged: a binary file, a link or a deletion stays a conflict, never forced.
        const mergeable =
          plain(base) && plain(ours) && plain(theirs) && !isBinary(base.data) && !isBinary(ours.data) && !isBinary(theirs.data);
        const merged =
          mergeable && (file.outcome === 'merge' || withMarkers) ? await this.merge(base, ours, theirs, worktree.branch) : null;
        if (file.outcome === 'merge' && merged?.conflicts === 0 && plain(ours)) {
          files.put(file.path, merged.data, ours.mode);
          result.merged.push(file.path);
        } else if (
          withMarkers &&
          merged &&
          plain(ours) &&
          file.outcome === 'conflict' &&
          file.reason?.startsWith('a file the agent may not write') !== true
        ) {
          files.put(file.path, merged.data, ours.mode);
          result.withMarkers.push(file.path);
        } else result.skipped.push(file.path);
      } catch {
        // One file that cannot be brought back (gone meanwhile, refused on the way) is left, and the others go on.
        result.skipped.push(file.path);
      }
    }
    // What was left out is not counted as brought back: the worktree still holds work until it is.
    const repositoryChanges = await this.changedPaths(repository, worktree.base);
    const broughtBack = repositoryChanges.filter((entry) => !result.skipped.includes(entry.path));
    return { ...result, fingerprint: await this.fingerprint(repository, worktree.base, broughtBack) };
  }

  /** Whether the worktree holds changes (committed or not) that are not as they were when last brought back. */
  async unmerged(worktree: Worktree, broughtBack: string | null): Promise<boolean> {
    if (!existsSync(worktree.root)) return false;
    const repository = await this.repositoryAt(worktree.root);
    const changed = await this.changedPaths(repository, worktree.base);
    if (changed.length === 0) return false;
    return (await this.fingerprint(repository, worktree.base, changed)) !== broughtBack;
  }

  /** Removes the worktree's folder, and its branch when asked (git refuses nothing here: the person chose). */
  async remove(worktree: Worktree, deleteBranch: boolean): Promise<void> {
    const place = await findRepository(this.git, worktree.mainRoot);
    if (!place) return;
    const main = new GitRepository(this.git, place, worktree.mainRoot);
    if (existsSync(worktree.root)) await main.run(['worktree', 'remove', '--force', '--end-of-options', worktree.root]);
    else await main.run(['worktree', 'prune']);
    if (deleteBranch) await main.run(['branch', '-D', '--end-of-options', worktree.branch], { allowFailure: true });
  }

  private async repositoryAt(root: string): Promise<GitRepository> {
    const place = await findRepository(this.git, root);
    if (!place) throw new GitError('git_failed', `The worktree at ${root} is gone.`);
    return new GitRepository(this.git, place, root);
  }

  /** Paths that differ from the base commit in the worktree: tracked ones from git's diff, and new untracked files. */
  private async changedPaths(repository: GitRepository, base: string): Promise<Array<{ path: string; change: BringBackFile['change'] }>> {
    const diff = await repository.run(
      ['diff', '--name-status', '-z', '--no-renames', '--ignore-submodules=dirty', '--no-ext-diff', '--no-textconv', base, '--'],
      {
        atRoot: true,
      },
    );
    const fields = diff.split('\0');
    const found: Array<{ path: string; change: BringBackFile['change'] }> = [];
    for (let index = 0; index + 1 < fields.length; index += 2) {
      const status = fields[index] ?? '';
      const path = fields[index + 1] ?? '';
      if (path === '') continue;
      found.push({ path, change: status.startsWith('A') ? 'create' : status.startsWith('D') ? 'delete' : 'modify' });
    }
    const untracked = await repository.run(['ls-files', '--others', '--exclude-standard', '-z'], { atRoot: true });
    for (const path of untracked.split('\0')) if (path !== '') found.push({ path, change: 'create' });
    return found.filter((entry) => !entry.path.split('/').includes('.git'));
  }

  private async baseSide(repository: GitRepository, base: string, path: string): Promise<Side | null> {
    const shown = await repository.runRaw(['cat-file', 'blob', `${base}:${path}`], { allowFailure: true });
    return shown.exitCode === 0 ? { data: shown.stdout, mode: 0o644 } : null;
  }

  private async outcomeOf(base: Side | null, ours: Found, theirs: Found): Promise<Pick<BringBackFile, 'outcome' | 'reason'>> {
    if (ours === 'other' || theirs === 'other')
      return { outcome: 'conflict', reason: 'not a plain file on one side (a link, a folder or a submodule): bring it over yourself' };
    if (same(ours, theirs)) return { outcome: 'same' };
    // The base's mode is not read: the file's bytes tell whether the person changed it.
    if (same(ours, base, false)) return { outcome: 'apply' };
    if (!base) return { outcome: 'conflict', reason: 'both made this file, with different contents' };
    if (!ours) return { outcome: 'conflict', reason: 'deleted in your folder, changed by the session' };
    if (!theirs) return { outcome: 'conflict', reason: 'changed in your folder, deleted by the session' };
    if (isBinary(base.data) || isBinary(ours.data) || isBinary(theirs.data))
      return { outcome: 'conflict', reason: 'a binary file both changed' };
    const merged = await this.merge(base, ours, theirs, 'session');
    return merged.conflicts === 0
      ? { outcome: 'merge' }
      : { outcome: 'conflict', reason: `${merged.conflicts} ${merged.conflicts === 1 ? 'place' : 'places'} both changed` };
  }

  /** git merge-file on copies: the merged text (with markers where both changed the same lines) and how many there are. */
  private async merge(base: Side, ours: Side, theirs: Side, label: string): Promise<{ data: Buffer; conflicts: number }> {
    const folder = await mkdtemp(join(tmpdir(), 'workbench-merge-'));
    try {
      await writeFile(join(folder, 'ours'), ours.data);
      await writeFile(join(folder, 'base'), base.data);
      await writeFile(join(folder, 'theirs'), theirs.data);
      const result = await this.git.run(
        folder,
        ['merge-file', '-p', '-L', 'your folder', '-L', 'where the worktree began', '-L', label, 'ours', 'base', 'theirs'],
        { allowFailure: true },
      );
      if (result.exitCode < 0 || result.exitCode > 127) throw new GitError('git_failed', `git merge-file failed: ${result.stderr.trim()}`);
      return { data: result.stdout, conflicts: result.exitCode };
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  }

  /** A hash of the worktree's changes: each changed path with its content now. */
  private async fingerprint(
    repository: GitRepository,
    base: string,
    changed: ReadonlyArray<{ path: string; change: BringBackFile['change'] }>,
  ): Promise<string> {
    const hash = createHash('sha256').update(base);
    for (const { path } of [...changed].sort((a, b) => (a.path < b.path ? -1 : 1))) {
      hash.update(`\0${path}\0`);
      const side = readSide(repository.place.root, path);
      hash.update(plain(side) ? Buffer.concat([side.data, Buffer.from(`\0${side.mode}`)]) : `(${side ?? 'deleted'})`);
    }
    return hash.digest('hex');
  }
}
