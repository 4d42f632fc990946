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

