import { useEffect, useRef, useState } from 'react';
import { busyStatuses } from '../../../shared/domain';
import { useDisposables } from '../disposables';
import { sendBlock } from '../model-readiness';
import { useAppState, type AppStore } from '../store';

export function Composer({ store, sessionId }: { store: AppStore; sessionId: string }) {
  const [text, setText] = useState('');
  const status = useAppState(store, (state) => state.views[sessionId]?.status ?? 'idle');
  const queued = useAppState(store, (state) => state.views[sessionId]?.queued ?? null);
  const busy = busyStatuses.has(status);
  // A queued message runs on the model the turn already has; a new one needs a model that is there.
  const blocked = useAppState(store, (state) => (busy ? null : sendBlock(state, sessionId)));
  const input = useRef<HTMLTextAreaElement>(null);
  const draft = useAppState(store, (state) => state.drafts[sessionId] ?? null);

  useEffect(() => {
    if (draft === null) return;
    setText(draft);
    store.setDraft(sessionId, null);
    input.current?.focus();
  }, [draft, store, sessionId]);

  useDisposables(
    (disposables) => {
      disposables.listen(window, 'keydown', (event: KeyboardEvent) => {
        if (event.key === 'Escape' && busy) void store.attempt(() => store.call('run:cancel', { sessionId }));
      });
    },
    [store, sessionId, busy],
  );

  const send = async (): Promise<void> => {
    const message = text.trim();
    if (message === '' || blocked !== null) return;
    const sent = await store.attempt(() => store.call('run:send', { sessionId, text: message }));
    if (sent) {
      setText('');
      store.notify(null);
    }
    input.current?.focus();
  };

  return (
    <>
      {queued !== null && (
        <div className="queued row" role="status" aria-label="Queued message">
          <span className="muted small">Queued, runs when this turn ends:</span>
          <span className="queued-text">{queued}</span>
          <button type="button" onClick={() => void store.attempt(() => store.call('run:clearQueue', { sessionId }))}>
            Clear
          </button>
        </div>
      )}
      {blocked !== null && (
        <p className="send-blocked small" id={`send-blocked-${sessionId}`} role="status" aria-label="Why Send is off">
          {blocked}
        </p>
      )}
      <form
        className="composer"
        onSubmit={(event) => {
          event.preventDefault();
          void send();
        }}
      >
        <textarea
          ref={input}
          aria-label="Message"
          placeholder={
            busy ? 'Queue a message for when this turn ends… (Enter)' : 'Ask the agent… (Enter to send, Shift+Enter for a new line)'
          }
          value={text}
          rows={3}
          onChange={(event) => setText(event.target.value)}
          onKeyDown={(event) => {
            if (event.key === 'Enter' && !event.shiftKey && !event.nativeEvent.isComposing) {
              event.preventDefault();
              void send();
            }
          }}
        />
        <button
          type="submit"
          className="primary"
          disabled={text.trim() === '' || blocked !== null}
          aria-label={busy ? 'Queue' : 'Send'}
          title={blocked ?? undefined}
          {...(blocked === null ? {} : { 'aria-describedby': `send-blocked-${sessionId}` })}
        >
          {busy ? 'Queue' : 'Send'}
        </button>
      </form>
    </>
  );
}
