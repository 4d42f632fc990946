/*
 * Deleting a session that works in a worktree of its own: whether its worktree goes too, said plainly when it holds
 * work not brought back.
 */

import type { Session } from '../../../shared/domain';
import type { Worktree } from '../../../shared/git';
import type { AppStore } from '../store';

/** Archives a session, telling the person where to restore it from. */
export async function archiveSession(store: AppStore, session: Session): Promise<void> {
  const archived = await store.call('session:delete', { sessionId: session.id });
  const until = archived.purgeAt === null ? '' : ` until ${new Date(archived.purgeAt).toLocaleDateString()}`;
  store.notify({ kind: 'info', text: `“${session.title}” was archived: restore it from Settings › Archived sessions${until}.` });
}

/** The choice shown under a session in a worktree when the person deletes it. */
export function WorktreeDelete({
  store,
  session,
  worktree,
  unmerged,
  onCancel,
}: {
  store: AppStore;
  session: Session;
  worktree: Worktree;
  unmerged: boolean;
  onCancel: () => void;
}) {
  const remove = (): void =>
    void store.attempt(async () => {
      // A branch with work not brought back is kept: its commits stay reachable.
      await store.call('git:removeWorktree', { sessionId: session.id, deleteBranch: !unmerged });
      await archiveSession(store, session);
    });
  return (
    <div className="worktree-delete notice small" role="group" aria-label={`Delete ${session.title}`}>
      <p>
        This session works in its own worktree (branch <code>{worktree.branch}</code>).{' '}
        {unmerged ? (
          <strong>It holds work not brought back to your folder: deleting the worktree loses what was not committed.</strong>
        ) : (
          'Its work is in your folder already.'
        )}
      </p>
      <div className="row">
        <button type="button" onClick={() => void store.attempt(() => archiveSession(store, session))}>
          Delete, keep the worktree
        </button>
        <button type="button" className={unmerged ? 'danger' : 'primary'} onClick={remove}>
          Delete with its worktree
        </button>
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </div>
  );
}
