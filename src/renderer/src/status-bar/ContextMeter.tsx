/*
 * The context meter of the status bar: how much of the model's window the last request took, and a way to summarize
 * older messages now.
 */

import { useState } from 'react';
import type { ViewContext } from '../../../shared/session-view';
import type { AppStore } from '../store';

const countingLabels = {
  tokenizer: "counted with the server's tokenizer",
  usage: "estimated from the server's own counts",
  estimate: 'estimated',
};
const sourceLabels = {
  setting: 'set in Settings',
  server: 'reported by the server',
  learned: 'learned from the server',
  default: 'a safe default',
};

/** How much of the model's window the last request took; amber from the point where older messages get summarized. */
export function ContextMeter({
  store,
  sessionId,
  context,
  busy,
  stale,
}: {
  store: AppStore;
  sessionId: string;
  context: ViewContext;
  busy: boolean;
  /** The last turn ended (failed or stopped) before it measured a request: this one is an earlier turn's. */
  stale: boolean;
}) {
  const [open, setOpen] = useState(false);
  const [instructions, setInstructions] = useState('');
  const share = Math.min(1, context.tokens / context.window);
  const level = context.tokens >= context.threshold ? 'high' : 'ok';
  const title = [
    ...(stale ? ['From an earlier turn: the last turn ended before it sent a request.'] : []),
    `Last request: about ${context.tokens} of ${context.window} tokens (${countingLabels[context.counting]}).`,
    `Window: ${sourceLabels[context.source]} (${context.detail}).`,
    `Older messages are summarized above ${context.threshold}; ${context.reserve} are kept for the answer.`,
    context.shortened > 0 ? `${context.shortened} old tool results were shortened.` : '',
    `Largest request so far: ${context.peak}.`,
  ]
    .filter(Boolean)
    .join('\n');
  return (
    <span className={`context-meter context-${level}${stale ? ' context-stale' : ''}`}>
      <button type="button" className="link" aria-label="Context window" title={title} aria-expanded={open} onClick={() => setOpen(!open)}>
        <span className="context-bar" aria-hidden="true">
          <span style={{ width: `${Math.round(share * 100)}%` }} />
        </span>
        {context.tokens.toLocaleString('en-US')} / {context.window.toLocaleString('en-US')}
        {context.source === 'default' ? ' ?' : ''}
      </button>
      {open && (
        <form
          className="context-popover"
          aria-label="Summarize the conversation"
          onSubmit={(event) => {
            event.preventDefault();
            setOpen(false);
            const text = instructions.trim();
            void store.attempt(() => store.call('session:compact', { sessionId, ...(text ? { instructions: text } : {}) }));
          }}
        >
          <p className="small">{title}</p>
          {context.source === 'default' && (
            <p className="small notice">
              The server does not say which window it loaded. If you know it, set it for this model in Settings.
            </p>
          )}
          <input
            aria-label="What the summary should keep"
            placeholder="What the summary should keep (optional)"
            value={instructions}
            maxLength={2000}
            onChange={(event) => setInstructions(event.target.value)}
          />
          <button type="submit" disabled={busy}>
            Summarize older messages now
          </button>
        </form>
      )}
    </span>
  );
}
