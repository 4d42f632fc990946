/*
 * The context meter of the status bar: how much of the model's window the last request took, and a way to summarize
 * older messages now.
 */

import { useRef, useState, type ReactNode, type RefObject } from 'react';
import { usePopover } from '../chrome/top-layer';
import type { SessionView, ViewContext } from '../../../shared/session-view';
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

const percent = (part: number, whole: number): number => (whole > 0 ? Math.round((part / whole) * 100) : 0);

/** How much of the prompt a server's cache could keep: the last request's unchanged beginning, and the session's share read again. */
function prefixLines(context: ViewContext, usage: SessionView['usage']): string[] {
  const lines =
    context.shared === null
      ? ['Unchanged beginning: none, the first request to this model on this line since the app started.']
      : [
          `Unchanged beginning: about ${context.shared} of ${context.tokens} tokens (${percent(context.shared, context.tokens)}%); ${context.tokens - context.shared} to read again.`,
        ];
  if (usage.promptTokens > 0)
    lines.push(
      `This session: ${percent(usage.rereadTokens, usage.promptTokens)}% of ${usage.promptTokens} prompt tokens read again${usage.cacheReadTokens > 0 ? `; the servers reported ${usage.cacheReadTokens} read from their caches` : ''}.`,
    );
  return lines;
}

/** The meter's popover, on the top layer under the meter: what it measures, and summarizing now. */
function ContextPopover({
  anchor,
  onClose,
  onSubmit,
  children,
}: {
  anchor: RefObject<HTMLElement | null>;
  onClose: () => void;
  onSubmit: () => void;
  children: ReactNode;
}) {
  const popover = usePopover<HTMLFormElement>(anchor, onClose);
  return (
    <form
      ref={popover}
      popover="auto"
      className="context-popover top-popover"
      aria-label="Summarize the conversation"
      onSubmit={(event) => {
        event.preventDefault();
        onSubmit();
      }}
    >
      {children}
    </form>
  );
}

/** How much of the model's window the last request took; amber from the point where older messages get summarized. */
export function ContextMeter({
  store,
  sessionId,
  context,
  usage,
  busy,
  stale,
}: {
  store: AppStore;
  sessionId: string;
  context: ViewContext;
  usage: SessionView['usage'];
  busy: boolean;
  /** The last turn ended (failed or stopped) before it measured a request: this one is an earlier turn's. */
  stale: boolean;
}) {
  const [open, setOpen] = useState(false);
  const [instructions, setInstructions] = useState('');
  const button = useRef<HTMLButtonElement>(null);
  const share = Math.min(1, context.tokens / context.window);
  const level = context.tokens >= context.threshold ? 'high' : 'ok';
  const title = [
    ...(stale ? ['From an earlier turn: the last turn ended before it sent a request.'] : []),
    `Last request: about ${context.tokens} of ${context.window} tokens (${countingLabels[context.counting]}).`,
    `Window: ${sourceLabels[context.source]} (${context.detail}).`,
    `Older messages are summarized above ${context.threshold}; ${context.reserve} are kept for the answer.`,
    context.shortened > 0 ? `${context.shortened} old tool results were shortened.` : '',
    `Largest request so far: ${context.peak}.`,
    ...prefixLines(context, usage),
  ]
    .filter(Boolean)
    .join('\n');
  return (
    <span className={`context-meter context-${level}${stale ? ' context-stale' : ''}`}>
      <button ref={button} type="button" className="link" title={title} aria-expanded={open} onClick={() => setOpen(!open)}>
        <span className="visually-hidden">Context window: </span>
        <span className="context-bar" aria-hidden="true">
          <span style={{ width: `${Math.round(share * 100)}%` }} />
        </span>
        {context.tokens.toLocaleString('en-US')} / {context.window.toLocaleString('en-US')}
        {context.source === 'default' ? ' ?' : ''}
      </button>
      {open && (
        <ContextPopover
          anchor={button}
          onClose={() => setOpen(false)}
          onSubmit={() => {
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
        </ContextPopover>
      )}
    </span>
  );
}
