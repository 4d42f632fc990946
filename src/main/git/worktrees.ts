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
import { GitError, type GitProgram } from './git-program';
import { checkedBranch } from './git-commit';
import { findRepository, GitRepository } from './repository';

/** A file read from one side: its bytes and mode, or null when it is not there. */
interface Side {
  readonly data: Buffer;
  readonly mode: number;
}

const isBinary = (data: Buffer): boolean => data.subarray(0, 8000).includes(0);
const same = (a: Side | null, b: Side | null): boolean => (a === null ? b === null : b !== null && a.data.equals(b.data));

/** The file at a path of a folder, or null when there is none (a link or a folder counts as none: never followed). */
function readSide(root: string, path: string): Side | null {
  const absolute = join(root, path);
  const found = lstatSync(absolute, { throwIfNoEntry: false });
  if (!found?.isFile()) return null;
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
    // Checkout hooks run, as for the person's own `git worktree add` (LFS fills its files that way).
    await main.run(['worktree', 'add', '-b', branch, '--end-of-options', root, base], { programs: 'hooks', atRoot: true });
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
      files.push({ path, change, ...(await this.outcomeOf(base, ours, theirs)) });
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
      const theirs = readSide(worktree.root, file.path);
      if (file.outcome === 'apply') {
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
      const merged = base && ours && theirs ? await this.merge(base, ours, theirs, worktree.branch) : null;
      if (file.outcome === 'merge' && merged && merged.conflicts === 0) {
        files.put(file.path, merged.data, ours?.mode ?? 0o644);
        result.merged.push(file.path);
      } else if (withMarkers && merged && ours) {
        files.put(file.path, merged.data, ours.mode);
        result.withMarkers.push(file.path);
      } else result.skipped.push(file.path);
    }
    return { ...result, fingerprint: plan.fingerprint };
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
    const diff = await repository.run(['diff', '--name-status', '-z', '--no-renames', '--no-ext-diff', '--no-textconv', base, '--'], {
      atRoot: true,
    });
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

  private async outcomeOf(base: Side | null, ours: Side | null, theirs: Side | null): Promise<Pick<BringBackFile, 'outcome' | 'reason'>> {
    if (same(ours, theirs)) return { outcome: 'same' };
    if (same(ours, base)) return { outcome: 'apply' };
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
      hash.update(side ? side.data : Buffer.from('(deleted)'));
    }
    return hash.digest('hex');
  }
}
