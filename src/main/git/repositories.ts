/*
 * The repositories of the workspaces the app works in: each found once and kept, and each one's figures for the
 * session header.
 */

import { existsSync } from 'node:fs';
import { BoundedMap } from '../../shared/bounded-map';
import { toErrorInfo } from '../../shared/errors';
import type { GitCommit, GitView } from '../../shared/git';
import { GitError, type GitAvailability, type GitProgram } from './git-program';
import type { GitCommitter } from '../agent/ports/git';
import { commitPaths } from './git-commit';
import { findRepository, GitRepository, locateRepository, readHead } from './repository';
import { pathKey } from '../workspace/path-case';

/** How long "not a repository" is believed before git is asked again (the person may run `git init`). */
const noneKeptMs = 10_000;

interface Found {
  readonly repository: GitRepository | null;
  readonly at: number;
}

/** The workspaces' repositories, found once each; the header's figures are one `git status`. */
export class Repositories implements GitCommitter {
  private readonly found = new BoundedMap<string, Found>({ max: 64, refreshOnRead: true });

  constructor(
    readonly git: GitProgram,
    private readonly now: () => number = Date.now,
    /** Whether the file system holding a folder ignores letter case; asked of the disk when absent. */
    private readonly caseIgnored?: (folder: string) => boolean,
  ) {}

  /** Whether git is there and new enough. */
  availability(): Promise<GitAvailability> {
    return this.git.check();
  }

  /** The repository a folder is in, or null when it is in none. Throws a `GitError` when git is missing or refuses it. */
  async of(folder: string, signal?: AbortSignal): Promise<GitRepository | null> {
    // By the file system's case rules: `/Users/me/WS` and `/Users/me/ws` are one folder, in one repository, where case is ignored.
    const key = pathKey(folder, this.caseIgnored?.(folder));
    const known = this.found.get(key);
    if (known?.repository && existsSync(known.repository.place.gitDir)) return known.repository;
    if (known && known.repository === null && this.now() - known.at < noneKeptMs) return null;
    const place = await findRepository(this.git, folder, signal);
    const repository = place ? new GitRepository(this.git, place, folder) : null;
    this.found.set(key, { repository, at: this.now() });
    return repository;
  }

  /** The commit checked out in a folder's repository, read from its files (no process is started): for checkpoints. */
  headOf(folder: string): string | null {
    const place = locateRepository(folder);
    return place ? readHead(place).commit : null;
  }

  /** Commits these paths of a workspace (relative to it), leaving the rest of the index as it was. */
  async commit(folder: string, paths: readonly string[], message: string, signal?: AbortSignal): Promise<GitCommit> {
    const repository = await this.of(folder, signal);
    if (!repository) throw new GitError('git_failed', 'The workspace is not in a git repository.');
    return commitPaths(repository, { paths, message, ...(signal ? { signal } : {}) });
  }

  /** A folder's branch, upstream and changed files, as the header shows them. */
  async view(folder: string | null, signal?: AbortSignal): Promise<GitView> {
    if (folder === null) return { kind: 'none' };
    const availability = await this.git.check();
    if (!availability.available) return { kind: 'unavailable', reason: availability.reason };
    try {
      const repository = await this.of(folder, signal);
      if (!repository) return { kind: 'none' };
      const status = await repository.status(signal);
      let staged = 0;
      let untracked = 0;
      let conflicted = 0;
      for (const entry of status.entries) {
        if (entry.kind === 'untracked') untracked += 1;
        else if (entry.kind === 'conflicted') conflicted += 1;
        else if (entry.staged !== '.') staged += 1;
      }
      return {
        kind: 'repository',
        root: repository.place.root,
        branch: status.branch,
        commit: status.commit,
        upstream: status.upstream,
        ahead: status.ahead,
        behind: status.behind,
        changed: status.entries.length,
        staged,
        untracked,
        conflicted,
      };
    } catch (error) {
      return { kind: 'unavailable', reason: toErrorInfo(error).message };
    }
  }
}
