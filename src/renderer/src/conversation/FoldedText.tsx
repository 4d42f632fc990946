/*
 * A long plain-text message folded to its start, with Show all and Show less.
 */

import { useState } from 'react';

/** Longer than this (characters or lines), a message shows its start and folds the rest. */
const foldCharacters = 1_500;
const foldLines = 20;

/** Where a long text is cut for its folded view: at the line limit or the character limit, whichever comes first. */
export function foldPoint(text: string): number | null {
  let at = -1;
  for (let line = 0; line < foldLines; line += 1) {
    at = text.indexOf('\n', at + 1);
    if (at === -1) break;
  }
  const byLines = at === -1 ? text.length : at;
  const cut = Math.min(byLines, foldCharacters);
  return cut < text.length ? cut : null;
}

/** A message's plain text, folded to its start when it is long, with "Show all" and "Show less". */
export function FoldedText({ text, className }: { text: string; className: string }) {
  const [open, setOpen] = useState(false);
  const cut = foldPoint(text);
  if (cut === null) return <p className={className}>{text}</p>;
  return (
    <>
      <p className={className}>{open ? text : `${text.slice(0, cut).trimEnd()}…`}</p>
      <button type="button" className="link small" aria-expanded={open} onClick={() => setOpen(!open)}>
        {open ? 'Show less' : `Show all (${text.length.toLocaleString()} characters)`}
      </button>
    </>
  );
}
