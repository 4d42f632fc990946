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

/**
 * A finished sub-agent's worktree brought back to its parent's folder: what applies cleanly is written, a conflict is
 * left in the worktree for the person, who brings it back with markers from the sub-agent's session. A worktree with
 * nothing left over is removed, its branch too. Said in a line for the parent; nothing when it has no worktree.
 */
export async function bringBackSubAgent(
  parts: { readonly store: SessionStore; readonly journal: SessionJournal; readonly worktrees: WorktreeMaker },
  childId: string,
): Promise<string> {
  const { store, journal, worktrees } = parts;
  const state = worktreeStateOf(store, childId);
  if (!state || state.removed) return '';
  const result = await worktrees.bringBack(state.worktree, false);
  journal.append(childId, [{ type: 'worktree_brought_back', result }]);
  const applied = [...result.written, ...result.deleted, ...result.merged];
  const words = [applied.length > 0 ? `Its changes came back to this folder: ${applied.join(', ')}.` : 'It left no changes to bring back.'];
  if (result.skipped.length > 0)
    words.push(
      `Conflicts with this folder were left in its worktree (branch ${state.worktree.branch}): ${result.skipped.join(', ')}. ` +
        "The person can bring them back with conflict markers from the sub-agent's session.",
    );
  else {
    await worktrees.remove(state.worktree, true);
    journal.append(childId, [{ type: 'worktree_removed', branchDeleted: true }]);
  }
  return words.join(' ');
}

/** The worktree a writing sub-agent asked for, made from its parent's folder; refused plainly where there can be none. */
export async function subAgentWorktree(
  worktrees: WorktreeMaker | undefined,
  parentFolder: string | null,
  title: string,
  suffix: string,
): Promise<{ worktree: Worktree; workspacePath: string }> {
  if (!worktrees || parentFolder === null)
    throw new WorkbenchError('invalid_input', 'A worktree needs git and a folder in a git repository: ask without "worktree".');
  return worktrees.create(parentFolder, branchFor(title, suffix));
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
