/*
 * What the runtime asks of git: the commit a workspace has checked out (each checkpoint records it), and commits of
 * the agent's changes.
 */

import type { BringBackPlan, BringBackResult, GitCommit, Worktree } from '../../../shared/git';

/** The commit a workspace's repository has checked out, read without starting a process: null outside a repository. */
export interface GitHeads {
  headOf(workspacePath: string): string | null;
}

/** Commits of named paths of a workspace, leaving everything else in the index as it was. */
export interface GitCommitter extends GitHeads {
  commit(workspacePath: string, paths: readonly string[], message: string, signal?: AbortSignal): Promise<GitCommit>;
}

/** Session worktrees: made from the person's repository, their changes brought back, removed. */
export interface WorktreeMaker {
  create(mainPath: string, branch: string): Promise<{ worktree: Worktree; workspacePath: string }>;
  plan(worktree: Worktree): Promise<BringBackPlan>;
  bringBack(worktree: Worktree, withMarkers: boolean): Promise<BringBackResult>;
  /** Whether it holds changes not brought back as they are now (`broughtBack`: the fingerprint last brought back). */
  unmerged(worktree: Worktree, broughtBack: string | null): Promise<boolean>;
  remove(worktree: Worktree, deleteBranch: boolean): Promise<void>;
}
