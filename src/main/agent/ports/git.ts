/*
 * What the runtime asks of git: the commit a workspace has checked out (each checkpoint records it), and commits of
 * the agent's changes.
 */

import type { GitCommit } from '../../../shared/git';

/** The commit a workspace's repository has checked out, read without starting a process: null outside a repository. */
export interface GitHeads {
  headOf(workspacePath: string): string | null;
}

/** Commits of named paths of a workspace, leaving everything else in the index as it was. */
export interface GitCommitter extends GitHeads {
  commit(workspacePath: string, paths: readonly string[], message: string, signal?: AbortSignal): Promise<GitCommit>;
}
