/*
 * Sessions in worktrees of their own: made with one, their work brought back to the person's folder, the worktree
 * removed when the person says so. Each step is journalled in the session's line.
 */

import { randomBytes } from 'node:crypto';
import type { Session } from '../../../shared/domain';
import { NotFoundError, WorkbenchError } from '../../../shared/errors';
import type { BringBackPlan, BringBackResult, Worktree } from '../../../shared/git';
import type { WorktreeMaker } from '../ports/git';
import type { SessionStore } from '../ports/stores';
import type { SessionJournal } from '../history/session-journal';

export interface SessionWorktreesOptions {
  readonly store: SessionStore;
  readonly journal: SessionJournal;
  readonly worktrees: WorktreeMaker;
  readonly createSession: (input: { title?: string; workspacePath: string }) => Promise<Session>;
  readonly assertIdle: (sessionId: string) => void;
}

/** A session's worktree as its journal tells: made, last brought back (the fingerprint then), removed. */
export interface WorktreeState {
  readonly worktree: Worktree;
  readonly broughtBack: string | null;
  readonly removed: boolean;
}

/** A session's worktree as its journal tells, or null when it works in the person's folder. */
export function worktreeStateOf(store: SessionStore, sessionId: string): WorktreeState | null {
  const made = store.nearest(sessionId, 'after', -1, ['worktree_created']);
  if (made?.event.type !== 'worktree_created') return null;
  const back = store.nearest(sessionId, 'before', Number.MAX_SAFE_INTEGER, ['worktree_brought_back']);
  const removed = store.nearest(sessionId, 'after', made.seq, ['worktree_removed']) !== null;
  return {
    worktree: made.event.worktree,
    broughtBack: back?.event.type === 'worktree_brought_back' ? back.event.result.fingerprint : null,
    removed,
  };
}

/** A branch name from a session's title: `workbench/fix-the-login-4f2a`. */
export function branchFor(title: string | undefined, suffix: string): string {
  const words = (title ?? '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 40)
    .replace(/-+$/, '');
  return `workbench/${words === '' ? 'session' : words}-${suffix}`;
}

/** Sessions in worktrees of their own. */
export class SessionWorktrees {
  constructor(private readonly options: SessionWorktreesOptions) {}

  /**
   * A new session working in a new worktree of the repository `workspacePath` is in, on a branch of its own. When the
   * session cannot be made, the worktree is removed again.
   */
  async createSession(input: { title?: string; workspacePath: string }): Promise<Session> {
    const branch = branchFor(input.title, randomBytes(2).toString('hex'));
    const { worktree, workspacePath } = await this.options.worktrees.create(input.workspacePath, branch);
    let session: Session;
    try {
      session = await this.options.createSession({ ...(input.title ? { title: input.title } : {}), workspacePath });
    } catch (error) {
      await this.options.worktrees.remove(worktree, true).catch(() => undefined);
      throw error;
    }
    this.options.journal.append(session.id, [{ type: 'worktree_created', worktree }]);
    return session;
  }

  /** The session's worktree, or null when it works in the person's folder. */
  stateOf(sessionId: string): WorktreeState | null {
    const { store } = this.options;
    if (!store.get(sessionId)) throw new NotFoundError('Session', sessionId);
    return worktreeStateOf(store, sessionId);
  }

  /** Whether the session's worktree holds work not brought back. */
  async unmerged(sessionId: string): Promise<boolean> {
    const state = this.stateOf(sessionId);
    if (!state || state.removed) return false;
    return this.options.worktrees.unmerged(state.worktree, state.broughtBack);
  }

  /** What bringing the session's work back would do, file by file. */
  async plan(sessionId: string): Promise<BringBackPlan> {
    return this.options.worktrees.plan(this.live(sessionId).worktree);
  }

  /** Brings the session's work back to the person's folder (conflicts with markers only when asked). */
  async bringBack(sessionId: string, withMarkers: boolean): Promise<BringBackResult> {
    this.options.assertIdle(sessionId);
    const result = await this.options.worktrees.bringBack(this.live(sessionId).worktree, withMarkers);
    this.options.journal.append(sessionId, [{ type: 'worktree_brought_back', result }]);
    return result;
  }

  /** Removes the session's worktree, and its branch when asked. */
  async remove(sessionId: string, deleteBranch: boolean): Promise<void> {
    this.options.assertIdle(sessionId);
    await this.options.worktrees.remove(this.live(sessionId).worktree, deleteBranch);
    this.options.journal.append(sessionId, [{ type: 'worktree_removed', branchDeleted: deleteBranch }]);
  }

  private live(sessionId: string): WorktreeState {
    const state = this.stateOf(sessionId);
    if (!state) throw new WorkbenchError('invalid_state', 'This session works in your folder, not in a worktree of its own.');
    if (state.removed) throw new WorkbenchError('invalid_state', "This session's worktree was removed.");
    return state;
  }
}
