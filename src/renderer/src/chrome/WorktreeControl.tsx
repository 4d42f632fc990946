/*
 * A session's own worktree in the git popover of its header: which branch it works on, and Bring back (what would
 * happen to each file, conflicts shown, then the work applied to the person's folder); for a session in the person's
 * repository, a way to start a new session in a worktree of its own.
 */

import { useEffect, useState } from 'react';
import type { BringBackPlan, BringBackResult } from '../../../shared/git';
import { errorMessage } from '../client';
import { useAppState, type AppStore } from '../store';

const outcomeWords = {
  apply: 'comes back as the session left it',
  merge: 'both changed it: merged',
  conflict: 'conflict',
  same: 'already the same',
} as const;

/** What came of a bring back, in a line. */
function resultWords(result: BringBackResult): string {
  const parts = [
    result.written.length > 0 ? `${result.written.length} written` : null,
    result.deleted.length > 0 ? `${result.deleted.length} deleted` : null,
    result.merged.length > 0 ? `${result.merged.length} merged` : null,
    result.withMarkers.length > 0
      ? `${result.withMarkers.length} with conflict markers to resolve: ${result.withMarkers.join(', ')}`
      : null,
    result.skipped.length > 0 ? `${result.skipped.length} conflicts left as your folder has them: ${result.skipped.join(', ')}` : null,
  ].filter((part) => part !== null);
  return parts.length === 0 ? 'Nothing to bring back: your folder has the session’s work already.' : `Brought back: ${parts.join('; ')}.`;
}

/** The plan of a bring back and its two ways: conflicts left alone, or written with markers. */
function BringBack({ store, sessionId, mainPath }: { store: AppStore; sessionId: string; mainPath: string }) {
  const [plan, setPlan] = useState<BringBackPlan | null>(null);
  const [result, setResult] = useState<BringBackResult | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [working, setWorking] = useState(false);
  // Each bring back, done or failed, is followed by the plan read again.
  const [runs, setRuns] = useState(0);
  useEffect(() => {
    let live = true;
    store
      .call('git:bringBackPlan', { sessionId })
      .then((next) => {
        if (live) setPlan(next);
      })
      .catch((failure: unknown) => {
        if (live) setError(errorMessage(failure));
      });
    return () => {
      live = false;
    };
  }, [store, sessionId, runs]);
  const run = (withMarkers: boolean): void => {
    setWorking(true);
    setError(null);
    store
      .call('git:bringBack', { sessionId, withMarkers })
      .then(setResult)
      .catch((failure: unknown) => setError(errorMessage(failure)))
      .finally(() => {
        setWorking(false);
        setRuns((count) => count + 1);
      });
  };
  const files = plan?.files.filter((file) => file.outcome !== 'same') ?? [];
  const conflicts = files.filter((file) => file.outcome === 'conflict');
  return (
    <div className="stack">
      <p className="small">
        The session’s work goes back to <code>{mainPath}</code>, file by file. A file you changed too is merged; where you both changed the
        same lines it is a conflict, never written over.
      </p>
      {plan === null && error === null && <p className="muted small">Comparing…</p>}
      {plan !== null && files.length === 0 && <p className="muted small">Nothing to bring back.</p>}
      {files.length > 0 && (
        <ul className="file-changes small" aria-label="Files to bring back">
          {files.map((file) => (
            <li key={file.path} data-conflict={file.outcome === 'conflict' ? 'true' : 'false'}>
              <code>{file.path}</code> <span>({file.change})</span>{' '}
              <span className={file.outcome === 'conflict' ? 'badge status-failed' : 'muted'}>
                {outcomeWords[file.outcome]}
                {file.reason ? `: ${file.reason}` : ''}
              </span>
            </li>
          ))}
        </ul>
      )}
      {result && (
        <p className="notice small" role="status">
          {resultWords(result)}
        </p>
      )}
      {error && (
        <p className="notice notice-error small" role="alert">
          {error}
        </p>
      )}
      <div className="row">
        <button type="button" className="primary" disabled={working || files.length === 0} onClick={() => run(false)}>
          {conflicts.length > 0 ? 'Bring back, leaving conflicts' : 'Bring back'}
        </button>
        {conflicts.length > 0 && (
          <button type="button" disabled={working} onClick={() => run(true)}>
            Bring back with conflict markers
          </button>
        )}
      </div>
    </div>
  );
}

/** The git popover's worktree part: this session's worktree with Bring back, or a new session in a worktree. */
export function WorktreePanel({ store, sessionId }: { store: AppStore; sessionId: string }) {
  const worktree = useAppState(store, (state) => state.views[sessionId]?.worktree ?? null);
  const session = useAppState(store, (state) => state.sessions.find((candidate) => candidate.id === sessionId) ?? null);
  // Checking out a large repository takes seconds: the button says it is under way.
  const [making, setMaking] = useState(false);
  if (worktree?.removed) return <p className="muted small">This session's worktree was removed.</p>;
  if (worktree)
    return (
      <section className="stack" aria-label="Bring back the session's work">
        <h4>Worktree</h4>
        <p className="small">
          This session works on branch <code>{worktree.branch}</code> in <code>{worktree.root}</code>, apart from your folder.
        </p>
        <BringBack store={store} sessionId={sessionId} mainPath={worktree.mainPath} />
      </section>
    );
  if (!session?.workspacePath || session.subAgent) return null;
  const workspacePath = session.workspacePath;
  return (
    <section className="stack">
      <p className="muted small">
        A new session on a branch of its own, checked out in a folder of the app’s at the commit checked out here: its changes do not touch
        this folder until you bring them back. Your uncommitted changes stay here.
      </p>
      <button
        type="button"
        disabled={making}
        onClick={() => {
          setMaking(true);
          void store
            .attempt(async () => {
              const created = await store.call('git:worktreeSession', { workspacePath });
              store.upsertSession(created);
              await store.select(created.id);
            })
            .finally(() => setMaking(false));
        }}
      >
        {making ? 'Making the worktree…' : 'New session in a worktree'}
      </button>
    </section>
  );
}
