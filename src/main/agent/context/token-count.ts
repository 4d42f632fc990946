/*
 * Counting a request before it is sent. A server's tokenizer is exact but a round trip away, so
 * requests are counted by characters times a ratio per model, and the ratio is set from what the
 * server itself counted: its tokenizer once, where it has one, and the prompt tokens it reports
 * after every call. Until then the ratio is on the safe side.
 */
import type { ChatMessage, ToolSpec } from '../ports/model-provider';

/**
 * Characters an attached image is counted as: about 1,600 tokens at the uncalibrated ratio, what Anthropic's
 * formula (width × height / 750) gives for an image near the 1.15 megapixels it scales larger ones down to.
 */
export const imageChars = 4_800;

/** Tokens a chat template adds around each message (role markers, separators). */
export const perMessageTokens = 6;

/** Before a model has reported any count: more tokens per character than most text takes. */
export const uncalibratedTokensPerChar = 0.34;

/** Counts above what the calibration says, to stay on the safe side of the window. */
const margin = 1.06;

export type Counting = 'tokenizer' | 'usage' | 'estimate';

const charCache = new WeakMap<ChatMessage, number>();

/** Characters of a message as a chat template sends them: its text, its calls' names and arguments, and its thinking. */
export function charsOf(message: ChatMessage): number {
  let chars = charCache.get(message);
  if (chars === undefined) {
    chars = message.content.length;
    if (message.role === 'assistant') {
      for (const call of message.toolCalls ?? []) chars += call.name.length + call.arguments.length + 24;
      // Thinking sent back is counted as its text (a redacted block as its data): on the safe side, as the API
      // counts that of the current tool loop and leaves out that of earlier turns.
      for (const block of message.thinking?.blocks ?? []) chars += block.type === 'thinking' ? block.thinking.length : block.data.length;
    } else if (message.role === 'tool') chars += message.toolCallId.length;
    else chars += (message.images?.length ?? 0) * imageChars;
    charCache.set(message, chars);
  }
  return chars;
}

const specCache = new WeakMap<readonly ToolSpec[], number>();

/** Characters of the tool definitions as sent. */
export function charsOfTools(tools: readonly ToolSpec[] | undefined): number {
  if (!tools || tools.length === 0) return 0;
  let chars = specCache.get(tools);
  if (chars === undefined) {
    chars = JSON.stringify(tools).length;
    specCache.set(tools, chars);
  }
  return chars;
}

/** The text a tokenizer is given to count a whole request by. */
export function requestText(system: string, tools: readonly ToolSpec[] | undefined, messages: readonly ChatMessage[]): string {
  const parts = [system, tools && tools.length > 0 ? JSON.stringify(tools) : ''];
  for (const message of messages) {
    parts.push(message.content);
    if (message.role === 'assistant') for (const call of message.toolCalls ?? []) parts.push(call.name, call.arguments);
  }
  return parts.join('\n');
}

/** A model's ratio of tokens to characters, and what set it. */
export interface Calibration {
  readonly tokensPerChar: number;
  readonly counting: Counting;
  readonly samples: number;
}

const uncalibrated: Calibration = { tokensPerChar: uncalibratedTokensPerChar, counting: 'estimate', samples: 0 };

/** Per model, the ratio the server's own counts gave. Kept for as long as the app runs. */
export class TokenCalibration {
  private readonly byModel = new Map<string, Calibration>();

  get(key: string): Calibration {
    return this.byModel.get(key) ?? uncalibrated;
  }

  /** Tokens for `chars` characters in `messages` messages, by this model's ratio. */
  estimate(key: string, chars: number, messages: number): number {
    return this.estimator(key)(chars, messages);
  }

  /** The model's estimate as a function, for counting many messages at once. */
  estimator(key: string): (chars: number, messages: number) => number {
    const { tokensPerChar, counting } = this.get(key);
    const ratio = tokensPerChar * (counting === 'estimate' ? 1 : margin);
    return (chars, messages) => Math.ceil(chars * ratio) + messages * perMessageTokens;
  }

  /** The server's tokenizer counted `tokens` for text of `chars` characters. */
  fromTokenizer(key: string, tokens: number, chars: number): void {
    if (!(tokens > 0) || !(chars > 0)) return;
    this.byModel.set(key, { tokensPerChar: tokens / chars, counting: 'tokenizer', samples: this.get(key).samples + 1 });
  }

  /**
   * The server reported `reported` prompt tokens for a request of `chars` characters in `messages`
   * messages. The ratio moves toward what it implies, never below it by much: an underestimate is
   * what overflows a window.
   */
  fromUsage(key: string, reported: number, chars: number, messages: number): void {
    if (!(reported > 0) || !(chars > 200)) return;
    const observed = Math.max(0.02, (reported - messages * perMessageTokens) / chars);
    const known = this.byModel.get(key);
    const tokensPerChar = known && known.counting !== 'estimate' ? Math.max(observed, (known.tokensPerChar + observed) / 2) : observed;
    this.byModel.set(key, {
      tokensPerChar,
      counting: known?.counting === 'tokenizer' ? 'tokenizer' : 'usage',
      samples: (known?.samples ?? 0) + 1,
    });
  }
}
