/*
 * The IPC handlers of git: the header's figures of a session's repository, and commits from Changes.
 */

import { NotFoundError } from '../../shared/errors';
import type { SessionStore } from '../agent/ports/stores';
import type { SessionRuntime } from '../agent/session/session-runtime';
import type { Repositories } from '../git/repositories';
import type { Handlers } from './router';

type GitChannel =
  | 'git:view'
  | 'git:draft'
  | 'git:commit'
  | 'git:worktreeSession'
  | 'git:worktree'
  | 'git:bringBackPlan'
  | 'git:bringBack'
  | 'git:removeWorktree';

/** How long a drafted message may take before the person is told to write one. */
const draftTimeoutMs = 120_000;

/** The handlers of git's channels. */
export function gitHandlers(deps: {
  readonly store: SessionStore;
  readonly runtime: SessionRuntime;
  readonly repositories: Repositories;
}): Pick<Handlers, GitChannel> {
  const { store, runtime, repositories } = deps;
  const sessionOf = (sessionId: string) => {
    const session = store.get(sessionId);
    if (!session) throw new NotFoundError('Session', sessionId);
    return session;
  };
  return {
    'git:view': async (input) => repositories.view(sessionOf(input.sessionId).workspacePath),
    'git:draft': async (input) => {
      sessionOf(input.sessionId);
      const draft = await runtime.draftCommit(input.sessionId, input.turnId ?? null, AbortSignal.timeout(draftTimeoutMs));
      return { message: draft.message, paths: [...draft.paths], changedSince: [...draft.changedSince] };
    },
    'git:commit': async (input) => {
      sessionOf(input.sessionId);
      return runtime.commitChanges(input.sessionId, input.turnId ?? null, input.message);
    },
    'git:worktreeSession': (input) =>
      runtime.worktrees().createSession({ workspacePath: input.workspacePath, ...(input.title ? { title: input.title } : {}) }),
    'git:worktree': async (input) => {
      sessionOf(input.sessionId);
      const state = runtime.worktrees().stateOf(input.sessionId);
      if (!state) return { worktree: null, removed: false, unmerged: false };
      return { worktree: state.worktree, removed: state.removed, unmerged: await runtime.worktrees().unmerged(input.sessionId) };
    },
    'git:bringBackPlan': async (input) => {
      sessionOf(input.sessionId);
      return runtime.worktrees().plan(input.sessionId);
    },
    'git:bringBack': async (input) => {
      sessionOf(input.sessionId);
      return runtime.worktrees().bringBack(input.sessionId, input.withMarkers);
    },
    'git:removeWorktree': async (input) => {
      sessionOf(input.sessionId);
      await runtime.worktrees().remove(input.sessionId, input.deleteBranch);
      return {};
    },
  };
}
