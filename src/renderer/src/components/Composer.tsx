import { useEffect, useRef, useState } from 'react';
import { busyStatuses } from '../../../shared/domain';
import { useAppState, type AppStore } from '../store';

export function Composer({ store, sessionId }: { store: AppStore; sessionId: string }) {
  const [text, setText] = useState('');
  const status = useAppState(store, (state) => state.views[sessionId]?.status ?? 'idle');
  const busy = busyStatuses.has(status);
  const input = useRef<HTMLTextAreaElement>(null);

  useEffect(() => {
    const onKey = (event: KeyboardEvent): void => {
      if (event.key === 'Escape' && busy) void store.attempt(() => store.call('run:cancel', { sessionId }));
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [store, sessionId, busy]);

  const send = async (): Promise<void> => {
    const message = text.trim();
    if (message === '' || busy) return;
    const sent = await store.attempt(() => store.call('run:send', { sessionId, text: message }));
    if (sent) {
      setText('');
      store.notify(null);
    }
    input.current?.focus();
  };

  return (
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
        placeholder="Ask the agent… (Enter to send, Shift+Enter for a new line)"
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
      <button type="submit" className="primary" disabled={busy || text.trim() === ''} aria-label="Send">
        Send
      </button>
    </form>
  );
}
