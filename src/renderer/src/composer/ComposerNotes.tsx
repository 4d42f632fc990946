/*
 * The notes above the message box: the queued message with a way to clear it, and why what was typed did not go.
 */

import { useAppState, type AppStore } from '../store';

/** A message waiting for the running turn to end, with a way to take it back. */
export function QueuedMessage({ store, sessionId }: { store: AppStore; sessionId: string }) {
  const queued = useAppState(store, (state) => state.views[sessionId]?.queued ?? null);
  if (queued === null) return null;
  return (
    <div className="queued row" role="status" aria-label="Queued message">
      <span className="muted small">Queued, runs when this turn ends:</span>
      <span className="queued-text">{queued}</span>
      <button type="button" onClick={() => void store.attempt(() => store.call('run:clearQueue', { sessionId }))}>
        Clear
      </button>
    </div>
  );
}

/** Why what was typed did not go: a command refused, a file that cannot be attached, or why Send is off. */
export function ComposerProblems({
  sessionId,
  problem,
  attachProblem,
  blocked,
}: {
  sessionId: string;
  problem: string | null;
  attachProblem: string | null;
  blocked: string | null;
}) {
  return (
    <>
      {problem !== null && (
        <p className="error small composer-problem" role="alert" aria-label="Command problem">
          {problem}
        </p>
      )}
      {attachProblem !== null && (
        <p className="error small composer-problem" role="alert" aria-label="Attachment problem">
          {attachProblem}
        </p>
      )}
      {blocked !== null && (
        <p className="send-blocked small" id={`send-blocked-${sessionId}`} role="status" aria-label="Why Send is off">
          {blocked}
        </p>
      )}
    </>
  );
}
