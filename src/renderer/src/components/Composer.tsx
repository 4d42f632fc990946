import { useEffect, useRef, useState } from 'react';
import { busyStatuses } from '../../../shared/domain';
import { runComposerCommand } from '../composer-commands';
import { useDisposables, useLifetime } from '../disposables';
import { sendBlock } from '../model-readiness';
import { commandsFor, readComposerText } from '../slash-commands';
import { useAppState, type AppStore } from '../store';

export function Composer({ store, sessionId }: { store: AppStore; sessionId: string }) {
  const [text, setText] = useState('');
  const status = useAppState(store, (state) => state.views[sessionId]?.status ?? 'idle');
  const queued = useAppState(store, (state) => state.views[sessionId]?.queued ?? null);
  const busy = busyStatuses.has(status);
  // A queued message runs on the model the turn already has; a new one needs a model that is there.
  const blocked = useAppState(store, (state) => (busy ? null : sendBlock(state, sessionId)));
  const input = useRef<HTMLTextAreaElement>(null);
  const lifetime = useLifetime();
  const [problem, setProblem] = useState<string | null>(null);
  const [highlighted, setHighlighted] = useState(0);
  const listed = commandsFor(text);
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

  const complete = (index: number): void => {
    const command = listed[index];
    if (command) setText(`/${command.name} `);
    setHighlighted(0);
    input.current?.focus();
  };

  const send = async (): Promise<void> => {
    if (text.trim() === '') return;
    const read = readComposerText(text);
    if (read.kind === 'refused') {
      setProblem(read.reason);
      return;
    }
    if (read.kind !== 'message') {
      const outcome = await runComposerCommand(store, sessionId, read, lifetime.current);
      if (outcome.done) setText('');
      setProblem(outcome.done ? null : outcome.reason);
      input.current?.focus();
      return;
    }
    const message = read.text;
    if (blocked !== null) return;
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
      {listed.length > 0 && (
        <ul className="slash-menu" role="listbox" aria-label="Commands">
          {listed.map((command, index) => (
            <li
              key={command.name}
              role="option"
              aria-selected={index === highlighted}
              onMouseDown={(event) => {
                // Keeps the focus in the message box.
                event.preventDefault();
                complete(index);
              }}
            >
              <code>{command.usage}</code> <span className="muted small">{command.summary}</span>
            </li>
          ))}
        </ul>
      )}
      {problem !== null && (
        <p className="error small composer-problem" role="alert" aria-label="Command problem">
          {problem}
        </p>
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
            busy
              ? 'Queue a message for when this turn ends… (Enter)'
              : 'Ask the agent… (Enter to send, Shift+Enter for a new line, / for commands)'
          }
          value={text}
          rows={3}
          onChange={(event) => {
            setText(event.target.value);
            setProblem(null);
            setHighlighted(0);
          }}
          onKeyDown={(event) => {
            if (listed.length > 0 && (event.key === 'ArrowDown' || event.key === 'ArrowUp')) {
              event.preventDefault();
              const step = event.key === 'ArrowDown' ? 1 : listed.length - 1;
              setHighlighted((current) => (current + step) % listed.length);
              return;
            }
            // Enter runs a whole command; on a name still being typed it completes it, as Tab does.
            const partial = readComposerText(text).kind === 'refused';
            if (listed.length > 0 && (event.key === 'Tab' || (event.key === 'Enter' && !event.shiftKey && partial))) {
              event.preventDefault();
              complete(highlighted);
              return;
            }
            if (event.key === 'Enter' && !event.shiftKey && !event.nativeEvent.isComposing) {
              event.preventDefault();
              void send();
            }
          }}
        />
        <button
          type="submit"
          className="primary"
          disabled={text.trim() === '' || (blocked !== null && readComposerText(text).kind === 'message')}
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
