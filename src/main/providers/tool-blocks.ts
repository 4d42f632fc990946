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

/**
 * Splits a streamed answer into its text and the tool-call blocks written in it, piece by piece: a tag split across
 * pieces is still found, and a block never comes out as text. Costs one scan of each piece, plus at most a tag's length
 * held back between pieces.
 */
export class ToolBlockParser {
  private held = '';
  private body: string[] = [];
  private inBlock = false;
  private finished = false;

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

  /** Text until the next tag; returns what is left after it. */
  private readText(text: string, events: BlockEvent[]): string {
    const open = text.indexOf(callOpen);
    const invented = text.indexOf(resultOpen);
    const at = open === -1 ? invented : invented === -1 ? open : Math.min(open, invented);
    if (at === -1) {
      const hold = partialTagAt(text, textTags);
      if (text.length > hold) events.push({ kind: 'text', text: text.slice(0, text.length - hold) });
      this.held = text.slice(text.length - hold);
      return '';
    }
    if (at > 0) events.push({ kind: 'text', text: text.slice(0, at) });
    if (at === invented) {
      this.finished = true;
      events.push({ kind: 'invented' });
      return '';
    }
    this.inBlock = true;
    this.body = [];
    events.push({ kind: 'open' });
    return text.slice(at + callOpen.length);
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
    this.body = [];
    return text.slice(close + callClose.length);
  }
}
