/*
 * The tags of the text tool protocol, and the parser that finds its blocks in an answer as it streams.
 */

/** The tags of the text tool protocol: a call is written between these, a result is given back between the others. */
export const callOpen = '<tool_call>';
export const callClose = '</tool_call>';
export const resultOpen = '<tool_result';

/** What the answer's text holds, in order, as it arrives. */
export type BlockEvent =
  /** Text outside any block: the answer itself. */
  | { readonly kind: 'text'; readonly text: string }
  /** A call block began. */
  | { readonly kind: 'open' }
  /** More of the open block's body. */
  | { readonly kind: 'body'; readonly text: string }
  /** The open block closed; `body` is all of it. */
  | { readonly kind: 'close'; readonly body: string }
  /** The answer ended inside a block. */
  | { readonly kind: 'unclosed'; readonly body: string }
  /** The model began writing a tool result itself: it is imagining one, and the rest of the answer is left out. */
  | { readonly kind: 'invented' };

const textTags = [callOpen, resultOpen] as const;
const bodyTags = [callClose] as const;

/** How many characters at the end of `text` could be the start of one of `tags` (and so must wait for the next piece). */
function partialTagAt(text: string, tags: readonly string[]): number {
  // No tag is longer than the call's closing tag.
  const from = Math.max(0, text.length - callClose.length + 1);
  for (let start = text.indexOf('<', from); start !== -1; start = text.indexOf('<', start + 1)) {
    const tail = text.slice(start);
    for (const tag of tags) if (tag.startsWith(tail)) return text.length - start;
  }
  return 0;
}

/** Spaces and tabs only. */
const blank = (text: string): boolean => /^[ \t]*$/.test(text);

/**
 * Splits a streamed answer into its text and the tool-call blocks written in it, piece by piece: a tag split across
 * pieces is still found, and a block never comes out as text. A tag counts at the start of a line (after spaces at
 * most), as the protocol writes it, and a call tag within a line only when a JSON object follows it: an answer that
 * mentions `<tool_call>` or `<tool_result>` in a sentence (a model explaining code that uses the tags) is text. Costs
 * one scan of each piece, plus at most a tag's length (or a call tag and the space after it) held back between pieces.
 */
export class ToolBlockParser {
  private held = '';
  private body: string[] = [];
  private inBlock = false;
  private finished = false;
  /** Nothing but spaces since the last line break of the text, its start, or the last block. */
  private lineBlank = true;

  push(piece: string): BlockEvent[] {
    if (this.finished || piece.length === 0) return [];
    const events: BlockEvent[] = [];
    let rest = this.held + piece;
    this.held = '';
    while (rest.length > 0 && !this.finished) {
      rest = this.inBlock ? this.readBody(rest, events) : this.readText(rest, events);
    }
    return events;
  }

  /** The answer ended: what was held back comes out, and a block still open is reported unclosed. */
  end(): BlockEvent[] {
    if (this.finished) return [];
    this.finished = true;
    const held = this.held;
    this.held = '';
    if (!this.inBlock) return held.length > 0 ? [{ kind: 'text', text: held }] : [];
    if (held.length > 0) this.body.push(held);
    return [{ kind: 'unclosed', body: this.body.join('') }];
  }

  /** Text until the next tag that counts; returns what is left after it. */
  private readText(text: string, events: BlockEvent[]): string {
    const { at, wait } = this.nextTag(text);
    if (wait) {
      // A call tag within a line: what follows it says whether it opens a call.
      if (at > 0) this.emit(text.slice(0, at), events);
      this.held = text.slice(at);
      return '';
    }
    if (at === -1) {
      const hold = partialTagAt(text, textTags);
      if (text.length > hold) this.emit(text.slice(0, text.length - hold), events);
      this.held = text.slice(text.length - hold);
      return '';
    }
    if (at > 0) this.emit(text.slice(0, at), events);
    if (text.startsWith(resultOpen, at)) {
      this.finished = true;
      events.push({ kind: 'invented' });
      return '';
    }
    this.inBlock = true;
    this.body = [];
    events.push({ kind: 'open' });
    return text.slice(at + callOpen.length);
  }

  /**
   * Where the first tag that counts is in `text` (-1: none). A tag at the start of a line counts; a call tag within a
   * line counts when a JSON object (or a code fence) follows it, and `wait` says that cannot be told yet.
   */
  private nextTag(text: string): { at: number; wait: boolean } {
    for (let from = 0; ;) {
      const open = text.indexOf(callOpen, from);
      const invented = text.indexOf(resultOpen, from);
      const at = open === -1 ? invented : invented === -1 ? open : Math.min(open, invented);
      if (at === -1) return { at: -1, wait: false };
      const lineStart = text.lastIndexOf('\n', at - 1) + 1;
      if (blank(text.slice(lineStart, at)) && (lineStart > 0 || this.lineBlank)) return { at, wait: false };
      if (at === open) {
        const rest = text.slice(at + callOpen.length, at + callOpen.length + 200);
        const after = /^\s*(\S)/.exec(rest);
        if (after && (after[1] === '{' || after[1] === '`')) return { at, wait: false };
        if (!after && rest.length < 200) return { at, wait: true };
      }
      from = at + 1;
    }
  }

  private emit(text: string, events: BlockEvent[]): void {
    events.push({ kind: 'text', text });
    const lineBreak = text.lastIndexOf('\n');
    this.lineBlank = (lineBreak !== -1 || this.lineBlank) && blank(text.slice(lineBreak + 1));
  }

  /** A block's body until its closing tag; returns what is left after it. */
  private readBody(text: string, events: BlockEvent[]): string {
    const close = text.indexOf(callClose);
    if (close === -1) {
      const hold = partialTagAt(text, bodyTags);
      const body = text.slice(0, text.length - hold);
      if (body.length > 0) {
        this.body.push(body);
        events.push({ kind: 'body', text: body });
      }
      this.held = text.slice(text.length - hold);
      return '';
    }
    const body = text.slice(0, close);
    if (body.length > 0) {
      this.body.push(body);
      events.push({ kind: 'body', text: body });
    }
    events.push({ kind: 'close', body: this.body.join('') });
    this.inBlock = false;
    this.lineBlank = true;
    this.body = [];
    return text.slice(close + callClose.length);
  }
}
