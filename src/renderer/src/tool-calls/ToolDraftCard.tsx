/*
 * The card of a tool call the model is still writing: its name as soon as it is known and its arguments as they
 * arrive.
 */

import { counted } from '../../../shared/counts';
import { memo, useLayoutEffect, useMemo, useRef } from 'react';
import type { ViewToolDraft } from '../../../shared/tool-call-drafts';
import { draftDisplay, tailOf, type DraftDisplay } from './draft-arguments';

/** Lines of a growing text kept in the page: its end is what is being written. */
const shownLines = 40;

/** The end of a text being written, kept in view as it grows. */
function GrowingText({ text, label }: { text: string; label: string }) {
  const pre = useRef<HTMLPreElement>(null);
  const { shown, earlierLines } = useMemo(() => tailOf(text, shownLines), [text]);
  useLayoutEffect(() => {
    const element = pre.current;
    if (element) element.scrollTop = element.scrollHeight;
  }, [shown]);
  return (
    <>
      {earlierLines > 0 && <p className="muted small">… {counted(earlierLines, 'line')} above</p>}
      <pre ref={pre} className="tool-input" aria-label={label}>
        {shown}
      </pre>
    </>
  );
}

function summaryOf(shown: DraftDisplay): string {
  if (shown.kind === 'file') return `${shown.path ?? ''} (${shown.content.length.toLocaleString()} characters so far)`;
  if (shown.kind === 'command') return '';
  return `${shown.text.length.toLocaleString()} characters so far`;
}

/**
 * A tool call the model is still writing: its name as soon as it is known and its arguments as they
 * arrive. It is not a request yet; once the response is complete the call's own card takes its place.
 */
export const ToolDraftCard = memo(function ToolDraftCard({ draft }: { draft: ViewToolDraft }) {
  const shown = useMemo(() => draftDisplay(draft.tool, draft.arguments), [draft.tool, draft.arguments]);
  const name = draft.tool === '' ? 'tool call' : draft.tool;
  return (
    <section className="tool-card tool-drafting" aria-label={`Tool ${name} being written`} data-state="drafting">
      <div className="tool-head">
        <span className="tool-name">{name}</span>
        <span className="tool-summary">{summaryOf(shown)}</span>
        <span className="tool-state">being written…</span>
      </div>
      <div className="tool-body">
        {shown.kind === 'file' && <GrowingText text={shown.content} label="Content so far" />}
        {shown.kind === 'command' && <GrowingText text={shown.command} label="Command so far" />}
        {shown.kind === 'raw' && <GrowingText text={shown.text} label="Arguments so far" />}
      </div>
    </section>
  );
});
