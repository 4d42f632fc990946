/*
 * The session header's git figures: the branch (or the detached commit), ahead and behind its upstream, and how many
 * files differ from the commit; read again after each step of the agent, when the window comes back, and every few
 * seconds while it is shown (the person changes files too). It opens the session's worktree: a new session in one, or
 * this session's work brought back.
 */

import { useRef, useState } from 'react';
import { counted } from '../../../shared/counts';
import type { GitView } from '../../../shared/git';
import { useDisposables } from '../disposables';
import { useAppState, type AppStore } from '../store';
import { Popover } from './Popover';
import { WorktreePanel } from './WorktreeControl';

/** How often the figures are read again while the window is shown. */
const refreshMs = 5000;

/** "3 changed", "1 changed, 1 conflicted". */
function changedWords(view: Extract<GitView, { kind: 'repository' }>): string {
  if (view.changed === 0) return 'clean';
  return `${view.changed} changed${view.conflicted > 0 ? `, ${view.conflicted} conflicted` : ''}`;
}

/** What the badge says on hover: each figure in words. */
function details(view: Extract<GitView, { kind: 'repository' }>): string {
  const where = view.branch === null ? `HEAD detached at ${view.commit ?? 'no commit'}` : `Branch ${view.branch}`;
  const upstream =
    view.upstream === null
      ? 'no upstream'
      : `${view.ahead ?? 0} ahead of and ${view.behind ?? 0} behind ${view.upstream} (as of the last fetch)`;
  return `${where}, ${upstream}. ${counted(view.changed, 'changed file')}: ${view.staged} staged, ${view.untracked} untracked, ${view.conflicted} conflicted. Repository: ${view.root}`;
}

/** The git badge of a session's header; nothing outside a repository. */
export function GitBadge({ store, sessionId }: { store: AppStore; sessionId: string }) {
  // Kept with the session it was read for: another session's figures are never shown while its own are read.
  const [read, setRead] = useState<{ sessionId: string; view: GitView } | null>(null);
  const [open, setOpen] = useState(false);
  const anchor = useRef<HTMLButtonElement>(null);
  const inWorktree = useAppState(store, (state) => {
    const worktree = state.views[sessionId]?.worktree;
    return worktree !== undefined && worktree !== null && !worktree.removed;
  });
  const view = read?.sessionId === sessionId ? read.view : null;
  // A step of the agent, a restore or a commit may change the figures: each reads them again.
  const steps = useAppState(store, (state) => {
    const session = state.views[sessionId];
    return session
      ? `${session.checkpoints.length}:${session.commits.length}:${session.lastRestore?.restoreId ?? ''}:${session.status}`
      : '';
  });
  const workspacePath = useAppState(store, (state) => state.sessions.find((session) => session.id === sessionId)?.workspacePath ?? null);
  useDisposables(
    (disposables) => {
      let reading = false;
      // Asked again while a read is under way (a focus right after a change): read once more when it ends, since the
      // read under way may have started before the change.
      let again = false;
      const read = (): void => {
        if (disposables.isDisposed) return;
        if (reading) {
          again = true;
          return;
        }
        reading = true;
        again = false;
        store
          .call('git:view', { sessionId })
          .then((next) => {
            if (!disposables.isDisposed) setRead({ sessionId, view: next });
          })
          // The figures are a convenience: a failed read leaves the last ones (the session may have gone).
          .catch(() => undefined)
          .finally(() => {
            reading = false;
            if (again) read();
          });
      };
      read();
      disposables.interval(() => {
        if (document.visibilityState === 'visible') read();
      }, refreshMs);
      disposables.listen(window, 'focus', read);
    },
    [store, sessionId, steps, workspacePath],
  );
  if (view === null || view.kind === 'none') return null;
  if (view.kind === 'unavailable')
    return (
      <span className="git-badge muted small" role="status" aria-label={`Git: ${view.reason}`} title={view.reason}>
        {/^Git was not found/.test(view.reason) ? 'no git' : /too old/.test(view.reason) ? 'git too old' : 'git: cannot read'}
      </span>
    );
  const where = view.branch ?? `detached ${view.commit?.slice(0, 7) ?? ''}`;
  return (
    <>
      <button
        ref={anchor}
        type="button"
        className="git-badge"
        aria-expanded={open}
        aria-label={`Git: ${details(view)}`}
        title={details(view)}
        onClick={() => setOpen(!open)}
      >
        <span className="git-branch">⎇ {where}</span>
        {view.upstream !== null && (view.ahead ?? 0) + (view.behind ?? 0) > 0 && (
          <span className="git-ahead muted small">
            {(view.ahead ?? 0) > 0 ? ` ↑${view.ahead}` : ''}
            {(view.behind ?? 0) > 0 ? ` ↓${view.behind}` : ''}
          </span>
        )}
        {inWorktree && <span className="muted small"> · worktree</span>}
        <span className="git-changed muted small"> · {changedWords(view)}</span>
      </button>
      {open && (
        <Popover anchor={anchor} onClose={() => setOpen(false)} className="git-popover" role="dialog" label="Git">
          <p className="small">{details(view)}</p>
          <WorktreePanel store={store} sessionId={sessionId} />
        </Popover>
      )}
    </>
  );
}
