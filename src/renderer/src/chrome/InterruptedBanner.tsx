/*
 * The banner of a turn the app stopped in the middle of: what was running, waiting or queued, with Resume and Discard.
 */

import { useAppState, type AppStore } from '../store';

/**
 * What was going on when the app stopped: the call that was running and what it printed, the
 * approval that was waiting, the queued message. Resume goes on from the last checkpoint; Discard
 * ends the turn and hands a queued message back.
 */
export function InterruptedBanner({ store, sessionId }: { store: AppStore; sessionId: string }) {
  const status = useAppState(store, (state) => state.views[sessionId]?.status);
  const interrupted = useAppState(store, (state) => state.views[sessionId]?.interrupted ?? null);
  if (status !== 'interrupted') return null;
  const tool = interrupted?.lastTool ?? null;
  return (
    <section className="interrupted" role="region" aria-label="Interrupted turn">
      <h3>The app stopped while this session was working</h3>
      <p className="muted small">
        Everything up to the last saved step is kept. Resume goes on from there; Discard ends the turn as it is.
      </p>
      {tool && (
        <div className="interrupted-tool">
          <div>
            <span className="muted small">Was running: </span>
            <strong>{tool.tool}</strong> <code>{tool.summary}</code>
          </div>
          {tool.output.length > 0 && (
            <pre className="tool-output" aria-label="Output so far">
              {tool.output.slice(-4_000)}
            </pre>
          )}
        </div>
      )}
      {interrupted?.approval && (
        <div>
          <span className="muted small">Was waiting for your approval: </span>
          <strong>{interrupted.approval.tool}</strong> <code>{interrupted.approval.summary}</code>
        </div>
      )}
      {interrupted?.queued && (
        <div>
          <span className="muted small">Queued message: </span>
          <span className="queued-text">{interrupted.queued}</span>
        </div>
      )}
      <div className="row">
        <button type="button" className="primary" onClick={() => void store.attempt(() => store.call('session:resume', { sessionId }))}>
          Resume
        </button>
        <button
          type="button"
          onClick={() =>
            void store.attempt(async () => {
              const { queued } = await store.call('session:discard', { sessionId });
              if (queued) {
                store.setDraft(sessionId, queued);
                store.notify({ kind: 'info', text: 'Your queued message is back in the message box.' });
              }
            })
          }
        >
          Discard
        </button>
      </div>
    </section>
  );
}
