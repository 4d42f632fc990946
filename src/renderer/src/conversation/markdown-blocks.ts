/*
 * Cuts streamed Markdown for rendering: finished blocks, the block still arriving, and long paragraphs in pieces, so
 * each is parsed only once.
 */

/** Splits streamed Markdown into finished blocks (ended by a blank line outside a code fence) and the block still arriving. */
export function splitBlocks(text: string): { done: string[]; tail: string } {
  const done: string[] = [];
  let fenced = false;
  let start = 0;
  let position = 0;
  while (position < text.length) {
    const end = text.indexOf('\n', position);
    const lineEnd = end < 0 ? text.length : end;
    const line = text.slice(position, lineEnd);
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
    else if (!fenced && line.trim() === '' && lineEnd > start && end >= 0) {
      const block = text.slice(start, position).replace(/\n+$/, '');
      if (block.trim() !== '') done.push(block);
      start = lineEnd + 1;
    }
    if (end < 0) break;
    position = end + 1;
  }
  return { done, tail: text.slice(start) };
}

/** Whether a block is a plain paragraph: no heading, list, quote, table, fence or indented code. */
function isParagraph(block: string): boolean {
  return !/^(\s{4}|\s*(#{1,6}\s|[-*+]\s|\d+[.)]\s|>|\||```|~~~))/.test(block);
}

/** Inline markers that must not be cut apart: code spans, emphasis, links. */
function balanced(text: string): boolean {
  const count = (pattern: RegExp): number => (text.match(pattern) ?? []).length;
  return (
    count(/`/g) % 2 === 0 &&
    count(/\*/g) % 2 === 0 &&
    count(/\[/g) === count(/]/g) &&
    count(/\(/g) === count(/\)/g) &&
    count(/(^|\s)_|_(\s|$)/g) % 2 === 0
  );
}

/**
 * Cuts a long plain paragraph into pieces of about `limit` characters, at spaces where no inline
 * marker is left open, so each piece can be parsed once and kept. Anything else comes back whole.
 */
export function splitLongParagraph(block: string, limit = 2 * 1024): string[] {
  if (block.length <= limit || !isParagraph(block)) return [block];
  const pieces: string[] = [];
  let start = 0;
  while (block.length - start > limit) {
    let cut = block.lastIndexOf(' ', start + limit);
    // A few tries back from the limit; a paragraph with no safe place is left whole from here.
    for (let tries = 0; cut > start && !balanced(block.slice(start, cut)); tries += 1)
      cut = tries < 64 ? block.lastIndexOf(' ', cut - 1) : -1;
    if (cut <= start) break;
    pieces.push(block.slice(start, cut + 1));
    start = cut + 1;
  }
  pieces.push(block.slice(start));
  return pieces;
}
