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

/** How a splitter starts, and whom it tells what a response showed. */
export interface ThinkTagOptions {
  /**
   * The prompt opened a think block: the chat template ends it with `<think>` (QwQ, DeepSeek R1, Qwen3's thinking
   * models), so the answer begins inside the reasoning and only the closing `</think>` streams.
   */
  readonly opened?: boolean;
  /**
   * Told what one response showed of how the model's answers begin: `true` when it closed a block it never opened (the
   * prompt opened it), `false` when a response that began inside reasoning (`opened`) ended without closing it.
   */
  readonly onEvidence?: (opensInside: boolean) => void;
}

/**
 * Reasoning that a server leaves inline in the answer (`<think>…</think>` before it, as DeepSeek R1,
 * QwQ and Qwen3 write it when the server does not separate it) is told apart from the answer as it
 * streams: whole, split across pieces at any character, or empty. Only reasoning at the start of a
 * response counts, so an answer that talks about the tag keeps it. A tag that never closes leaves
 * everything after it as reasoning, as the model meant.
 *
 * When the prompt opened the block (`opened`), the response starts as reasoning and the first `</think>` ends it; text
 * is given on at once either way, never held to see what it turns out to be. Without `opened`, a response whose first
 * tag is a `</think>` is left as it came (its reasoning was shown as answer already) and is told as evidence, so the
 * model's next answers can start inside the reasoning.
 */
export class ThinkTagSplitter {
  private state: 'start' | 'thinking' | 'answer' = 'start';
  private held = '';
  /** After the reasoning, the blank lines before the answer are dropped. */
  private trimNext = false;
  /** The reasoning was opened by the prompt, not by a tag in the response, and has not been closed. */
  private openedByPrompt = false;
  /** Whether reasoning opened by the prompt had any words. */
  private reasoned = false;
  /**
   * While an answer that no tag began is watched for the first tag in it: its last characters, so a tag cut across
   * pieces is found. Null once a tag was found, or the response began with one.
   */
  private watched: string | null = '';

  constructor(private readonly options: ThinkTagOptions = {}) {}

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
        this.watch(text);
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
          this.watched = null;
          text = rest.slice(open.length);
          continue;
        }
        this.state = this.options.opened ? 'thinking' : 'answer';
        this.openedByPrompt = this.options.opened === true;
        continue;
      }
      const end = text.indexOf(close);
      if (end >= 0) {
        if (end > 0) out.push(this.reasoning(text.slice(0, end)));
        this.state = 'answer';
        this.trimNext = true;
        this.openedByPrompt = false;
        this.watched = null;
        text = text.slice(end + close.length);
        continue;
      }
      const partial = partialTagAt(text, close);
      if (text.length > partial) out.push(this.reasoning(text.slice(0, text.length - partial)));
      this.held = text.slice(text.length - partial);
      break;
    }
    return out;
  }

  /** What was held back when the response ended. */
  end(): ContentPiece[] {
    const held = this.held;
    this.held = '';
    if (this.state === 'thinking' && this.openedByPrompt && (this.reasoned || held.trim() !== '')) this.options.onEvidence?.(false);
    if (held.length === 0) return [];
    if (this.state === 'thinking') return [this.reasoning(held)];
    if (this.state === 'start' && this.options.opened) return [this.reasoning(held)];
    return this.state === 'answer' && this.trimNext ? [] : [{ kind: 'text', text: held }];
  }

  private reasoning(text: string): ContentPiece {
    if (this.openedByPrompt && text.trim() !== '') this.reasoned = true;
    return { kind: 'reasoning', text };
  }

  /** Finds the answer's first tag; a `</think>` before any `<think>` closed a block the prompt opened. */
  private watch(text: string): void {
    if (this.watched === null) return;
    const seen = this.watched + text;
    const opens = seen.indexOf(open);
    const closes = seen.indexOf(close);
    if (closes >= 0 && (opens < 0 || closes < opens)) {
      this.watched = null;
      this.options.onEvidence?.(true);
    } else if (opens >= 0) this.watched = null;
    else this.watched = seen.slice(-(close.length - 1));
  }
}

/** The stream events of content pieces. */
export function* contentEvents(pieces: readonly ContentPiece[]): Iterable<ModelStreamEvent> {
  for (const piece of pieces)
    yield piece.kind === 'text' ? { type: 'text_delta', text: piece.text } : { type: 'reasoning_delta', text: piece.text, inline: true };
}
