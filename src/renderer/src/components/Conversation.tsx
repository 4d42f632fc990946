import { memo, useEffect, useRef } from 'react';
import Markdown from 'react-markdown';
import type { ViewMessage } from '../../../shared/session-view';
import { useAppState, type AppStore } from '../store';
import { ToolCard } from './ToolCard';

const MessageBody = memo(function MessageBody({ text }: { text: string }) {
  return (
    <Markdown
      components={{
        a: ({ href, children }) => (
          <a href={href} target="_blank" rel="noreferrer noopener">
            {children}
          </a>
        ),
      }}
    >
      {text}
    </Markdown>
  );
});

const stateLabels: Record<ViewMessage['state'], string | null> = {
  streaming: null,
  done: null,
  cancelled: 'Stopped',
  failed: 'Failed',
  interrupted: 'Interrupted: the app stopped while this was running',
};

function MessageItem({ message }: { message: ViewMessage }) {
  const label = stateLabels[message.state];
  return (
    <article className={`message message-${message.role} state-${message.state}`} aria-label={message.role === 'user' ? 'Your message' : 'Answer'} data-state={message.state}>
      {message.reasoning.length > 0 && (
        <details className="reasoning">
          <summary>Reasoning</summary>
          <pre>{message.reasoning}</pre>
        </details>
      )}
      {message.text.length > 0 && <MessageBody text={message.text} />}
      {message.toolCalls.map((call) => (
        <ToolCard key={call.id} call={call} />
      ))}
      {message.state === 'streaming' && message.text.length === 0 && message.toolCalls.length === 0 && <span className="muted">…</span>}
      {message.error && (
        <div className="message-error" role="alert">
          {message.error.message}
        </div>
      )}
      {label && !message.error && <div className="message-flag muted small">{label}</div>}
    </article>
  );
}

export function Conversation({ store, sessionId }: { store: AppStore; sessionId: string }) {
  const view = useAppState(store, (state) => state.views[sessionId]);
  const scroller = useRef<HTMLDivElement>(null);
  const pinned = useRef(true);
  const last = view?.messages.at(-1);

  useEffect(() => {
    const element = scroller.current;
    if (element && pinned.current) element.scrollTop = element.scrollHeight;
  }, [view?.messages.length, last?.text.length, last?.reasoning.length, last?.toolCalls]);

  if (!view) return <div className="conversation muted">Loading…</div>;
  return (
    <div
      className="conversation"
      ref={scroller}
      onScroll={(event) => {
        const element = event.currentTarget;
        pinned.current = element.scrollHeight - element.scrollTop - element.clientHeight < 40;
      }}
    >
      {view.messages.length === 0 && <p className="muted center">Ask for something to begin.</p>}
      {view.messages.map((message) => (
        <MessageItem key={message.id} message={message} />
      ))}
    </div>
  );
}
