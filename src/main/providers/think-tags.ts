/*
 * Tells the reasoning a server leaves inline in the answer (`<think>…</think>`) apart from the answer itself, as it
 * streams.
 */

import type { ModelStreamEvent } from '../agent/ports/model-provider';
/** A piece of a response, once inline reasoning is told apart from the answer. */
export interface ContentPiece {
  readonly kind: 'text' | 'reasoning';
  readonly text: string;
}

const open = '<think>';
const close = '</think>';

/** How much of `text`'s end could be the start of `tag`: held back until the next piece says. */
function partialTagAt(text: string, tag: string): number {
  for (let length = Math.min(tag.length - 1, text.length); length > 0; length -= 1) if (text.endsWith(tag.slice(0, length))) return length;
  return 0;
}

/**
 * Reasoning that a server leaves inline in the answer (`<think>…</think>` before it, as DeepSeek R1,
 * QwQ and Qwen3 write it when the server does not separate it) is told apart from the answer as it
 * streams: whole, split across pieces at any character, or empty. Only reasoning at the start of a
 * response counts, so an answer that talks about the tag keeps it. A tag that never closes leaves
 * everything after it as reasoning, as the model meant.
 */
export class ThinkTagSplitter {
  private state: 'start' | 'thinking' | 'answer' = 'start';
  private held = '';
  /** After the reasoning, the blank lines before the answer are dropped. */
  private trimNext = false;

  push(piece: string): ContentPiece[] {
    const out: ContentPiece[] = [];
    let text = this.held + piece;
    this.held = '';
    while (text.length > 0) {
      if (this.state === 'answer') {
        if (this.trimNext) {
          text = text.replace(/^\s+/, '');
          if (text.length === 0) break;
          this.trimNext = false;
        }
        out.push({ kind: 'text', text });
        break;
      }
      if (this.state === 'start') {
        const leading = text.length - text.trimStart().length;
        const rest = text.slice(leading);
        if (rest.length === 0 || (open.startsWith(rest) && rest.length < open.length)) {
          // Only whitespace, or the beginning of the tag: wait for more.
          this.held = text;
          break;
        }
        if (rest.startsWith(open)) {
          this.state = 'thinking';
          text = rest.slice(open.length);
          continue;
        }
        this.state = 'answer';
        continue;
      }
      const end = text.indexOf(close);
      if (end >= 0) {
        if (end > 0) out.push({ kind: 'reasoning', text: text.slice(0, end) });
        this.state = 'answer';
        this.trimNext = true;
        text = text.slice(end + close.length);
        continue;
      }
      const partial = partialTagAt(text, close);
      if (text.length > partial) out.push({ kind: 'reasoning', text: text.slice(0, text.length - partial) });
      this.held = text.slice(text.length - partial);
      break;
    }
    return out;
  }

  /** What was held back when the response ended. */
  end(): ContentPiece[] {
    const held = this.held;
    this.held = '';
    if (held.length === 0) return [];
    if (this.state === 'thinking') return [{ kind: 'reasoning', text: held }];
    return this.state === 'answer' && this.trimNext ? [] : [{ kind: 'text', text: held }];
  }
}

/** The stream events of content pieces. */
export function* contentEvents(pieces: readonly ContentPiece[]): Iterable<ModelStreamEvent> {
  for (const piece of pieces)
    yield piece.kind === 'text' ? { type: 'text_delta', text: piece.text } : { type: 'reasoning_delta', text: piece.text, inline: true };
}
