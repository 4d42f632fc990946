/*
 * Counting a request before it is sent. A server's tokenizer is exact but a round trip away, so its fixed part (the
 * system prompt and tool definitions, the same text at every request of a session) is counted by it once, where the
 * server has one, and the messages by characters times a ratio per model, set from the prompt tokens the server
 * reports after every call. Until then the ratio is on the safe side.
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

/** Tool definitions before any count: JSON, where a brace, a quote or a colon can each be a token. */
const uncalibratedToolTokensPerChar = 0.5;

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

const toolsJsonCache = new WeakMap<readonly ToolSpec[], string>();

/** The tool definitions as JSON, made once per array. */
function toolsJson(tools: readonly ToolSpec[]): string {
  let json = toolsJsonCache.get(tools);
  if (json === undefined) {
    json = JSON.stringify(tools);
    toolsJsonCache.set(tools, json);
  }
  return json;
}

/** Characters of the tool definitions as sent. */
export function charsOfTools(tools: readonly ToolSpec[] | undefined): number {
  return tools && tools.length > 0 ? toolsJson(tools).length : 0;
}

/** The fixed part of a request: the system prompt and the tool definitions, the same at every request of a session. */
export interface FixedPart {
  /** As one text: what a tokenizer is given to count it by, and what its count is kept under. */
  readonly text: string;
  /** Characters as sent, and those of the tool definitions among them. */
  readonly chars: number;
  readonly toolChars: number;
}

/** The fixed part of a request with this system prompt and these tool definitions. */
export function fixedPartOf(system: string, tools: readonly ToolSpec[] | undefined): FixedPart {
  const toolChars = charsOfTools(tools);
  return { text: toolChars > 0 && tools ? `${system}\n${toolsJson(tools)}` : system, chars: system.length + toolChars, toolChars };
}

/**
 * The text a tokenizer is given to count messages by, with what `charsOf` counts of them: their texts, their calls as
 * the OpenAI-compatible API sends them (the JSON around a call is dense, and `charsOf` gives it only a few characters),
 * their thinking, the ids results answer. `chars` leaves out what stands for images, which no text counts.
 */
export function messagesText(messages: readonly ChatMessage[]): { text: string; chars: number } {
  const parts: string[] = [];
  let chars = 0;
  for (const message of messages) {
    parts.push(message.content);
    chars += charsOf(message);
    if (message.role === 'assistant') {
      for (const call of message.toolCalls ?? [])
        parts.push(JSON.stringify({ id: call.id, type: 'function', function: { name: call.name, arguments: call.arguments } }));
      for (const block of message.thinking?.blocks ?? []) parts.push(block.type === 'thinking' ? block.thinking : block.data);
    } else if (message.role === 'tool') parts.push(message.toolCallId);
    else chars -= (message.images?.length ?? 0) * imageChars;
  }
  return { text: parts.join('\n'), chars };
}

/** Whether messages send nothing but their text (no calls, results, images or thinking): then `messagesText` is all of them. */
export function plainMessages(messages: readonly ChatMessage[]): boolean {
  return messages.every((message) => message.role !== 'tool' && charsOf(message) === message.content.length);
}

/** A ratio of tokens to characters, and what set it. */
export interface Calibration {
  readonly tokensPerChar: number;
  readonly counting: Counting;
  readonly samples: number;
}

const uncalibrated: Calibration = { tokensPerChar: uncalibratedTokensPerChar, counting: 'estimate', samples: 0 };

/** A request as it was counted, to learn from what the server then reports of it. */
export interface CountedRequest {
  /** Characters of the whole request, and of its fixed part (system prompt and tool definitions). */
  readonly chars: number;
  readonly fixedChars: number;
  /** Its messages, the system prompt's included. */
  readonly messageCount: number;
  /**
   * Where the server's tokenizer had counted the fixed part: its text, and the tokens of the messages when the
   * tokenizer counted this very request's messages too (the first request with that fixed part, plain text only).
   */
  readonly tokenized?: { readonly fixedText: string; readonly messageTokens?: number };
}

/** What a model's server counted with its tokenizer. */
interface Tokenized {
  /** Tokens of the fixed parts it counted, by their text; the newest few. */
  readonly fixed: Map<string, number>;
  /**
   * Tokens its chat template adds to a request beyond the texts counted and `perMessageTokens` a message (the tool
   * definitions as it writes them, a preamble): measured on a request whose messages the tokenizer counted too.
   */
  template: number | undefined;
  /**
   * The ratio of the messages alone, set apart from the denser fixed part: until the tokenizer counted messages long
   * enough to say anything, that of the fixed part (counting 'estimate').
   */
  messages: Calibration;
}

interface ModelCounts {
  /** The ratio of whole requests: what counts a fixed part the tokenizer has not counted, and everything without one. */
  whole: Calibration;
  tokenized?: Tokenized;
}

/** Fixed parts kept counted per model: a session's, the summarizer's, and a few left behind by changed settings. */
const fixedKept = 8;
/** Characters of a text the tokenizer must have counted for its ratio to say anything of others. */
export const seedChars = 1_000;
/** Characters of messages a reported count must cover to move their ratio: fewer say more of the template than of them. */
const learnChars = 500;

/**
 * The ratio moves toward what a count implies, never below it by much: an underestimate is what overflows a window.
 * Up at once, down by half the way at each count.
 */
function learned(known: Calibration, observed: number): Calibration {
  const tokensPerChar = known.counting === 'estimate' ? observed : Math.max(observed, (known.tokensPerChar + observed) / 2);
  return { tokensPerChar, counting: known.counting === 'tokenizer' ? 'tokenizer' : 'usage', samples: known.samples + 1 };
}

/**
 * The messages' ratio before the tokenizer counted any: that of the fixed part, above it by the margin, where denser
 * than the safe ratio. Messages can be as dense as the system prompt and tool definitions (logs, JSON); until a count
 * says how dense they are, they are taken to be.
 */
function messagesBefore(fixed: { text: string; tokens: number } | undefined): Calibration {
  const dense = fixed && fixed.text.length >= seedChars ? (fixed.tokens / fixed.text.length) * margin : 0;
  return { ...uncalibrated, tokensPerChar: Math.max(uncalibratedTokensPerChar, dense) };
}

/** Tokens by a ratio, above it by the margin once it was set from the server's counts. */
function estimatorOf({ tokensPerChar, counting }: Calibration): (chars: number, messages: number) => number {
  const ratio = tokensPerChar * (counting === 'estimate' ? 1 : margin);
  return (chars, messages) => Math.ceil(chars * ratio) + messages * perMessageTokens;
}

/**
 * Per model, what the server's own counts gave, kept for as long as the app runs. A request's fixed part (system prompt
 * and tool definitions: dense text, paths and JSON) takes more tokens a character than its messages (prose, file
 * contents), so where the server's tokenizer counted the fixed part, that count stands for it and the messages have a
 * ratio of their own, set by the tokenizer's count of the first messages long enough, then moved by what the server
 * reports less the fixed part. Without a tokenizer the whole request is counted by one ratio.
 */
export class TokenCalibration {
  private readonly byModel = new Map<string, ModelCounts>();

  /** The ratio messages to this model are counted by. */
  get(key: string): Calibration {
    const counts = this.byModel.get(key);
    return counts?.tokenized?.messages ?? counts?.whole ?? uncalibrated;
  }

  /** Tokens for `chars` characters of messages in `messages` messages, by this model's ratio for them. */
  estimate(key: string, chars: number, messages: number): number {
    return this.estimator(key)(chars, messages);
  }

  /** The model's estimate of messages as a function, for counting many at once. */
  estimator(key: string): (chars: number, messages: number) => number {
    return estimatorOf(this.get(key));
  }

  /** Whether the server's tokenizer counted this fixed part for this model. */
  counted(key: string, fixedText: string): boolean {
    return this.byModel.get(key)?.tokenized?.fixed.has(fixedText) ?? false;
  }

  /** What the tokenizer can still tell of this model's messages: their ratio (until it counted enough of them), the template's share. */
  needs(key: string): { ratio: boolean; template: boolean } {
    const tokenized = this.byModel.get(key)?.tokenized;
    return { ratio: tokenized === undefined || tokenized.messages.counting === 'estimate', template: tokenized?.template === undefined };
  }

  /**
   * Tokens of a fixed part, its system prompt's message included: the tokenizer's count with the template's share where
   * it counted it (above it by the margin until that share is known), else the whole ratio's; before any count, the
   * tool definitions by a ratio of their own.
   */
  fixedTokens(key: string, part: FixedPart): number {
    const counts = this.byModel.get(key);
    const tokens = counts?.tokenized?.fixed.get(part.text);
    const whole = counts?.whole ?? uncalibrated;
    if (tokens === undefined && whole.counting === 'estimate') {
      const system = (part.chars - part.toolChars) * whole.tokensPerChar;
      return Math.ceil(system + part.toolChars * uncalibratedToolTokensPerChar) + perMessageTokens;
    }
    if (tokens === undefined) return estimatorOf(whole)(part.chars, 1);
    const template = counts?.tokenized?.template;
    return (template === undefined ? Math.ceil(tokens * margin) : tokens + template) + perMessageTokens;
  }

  /** How a request with this fixed part is counted, as the person is told. */
  counting(key: string, fixedText: string): Counting {
    const counts = this.byModel.get(key);
    if (!counts?.tokenized?.fixed.has(fixedText)) return counts?.whole.counting ?? 'estimate';
    return counts.tokenized.messages.counting === 'usage' ? 'usage' : 'tokenizer';
  }

  /** Whether the ratio messages are counted by is trusted to a 30 % miss: set by the tokenizer, or by several counts. */
  trusted(key: string): boolean {
    const { counting, samples } = this.get(key);
    return counting === 'tokenizer' || (counting === 'usage' && samples >= 3);
  }

  /**
   * The server's tokenizer counted `fixed.tokens` for a fixed part and `messages.tokens` for messages of `messages.chars`
   * characters as `charsOf` counts them (see `messagesText`). The first messages long enough set the messages' ratio;
   * the fixed part sets the whole ratio while nothing else has.
   */
  fromTokenizer(key: string, fixed?: { text: string; tokens: number }, messages?: { tokens: number; chars: number }): void {
    const counts = this.model(key);
    const tokenized: Tokenized = counts.tokenized ?? { fixed: new Map(), template: undefined, messages: messagesBefore(fixed) };
    counts.tokenized = tokenized;
    if (fixed && fixed.tokens >= 0) {
      if (tokenized.fixed.size >= fixedKept) tokenized.fixed.delete(tokenized.fixed.keys().next().value ?? '');
      tokenized.fixed.set(fixed.text, fixed.tokens);
      if (counts.whole.counting === 'estimate' && fixed.text.length >= seedChars)
        counts.whole = { tokensPerChar: fixed.tokens / fixed.text.length, counting: 'tokenizer', samples: 1 };
    }
    if (messages && messages.tokens > 0 && messages.chars >= seedChars && tokenized.messages.counting === 'estimate')
      tokenized.messages = { tokensPerChar: messages.tokens / messages.chars, counting: 'tokenizer', samples: 1 };
  }

  /** The server's tokenizer is gone: what it counted no longer stands for anything, and the whole ratio counts again. */
  forgetTokenizer(key: string): void {
    const counts = this.byModel.get(key);
    if (counts) delete counts.tokenized;
  }

  /**
   * The server reported `reported` prompt tokens for a request counted as `sent`: the whole ratio moves toward what
   * it implies; so does the messages' ratio where the tokenizer had counted the request's fixed part, from what is left
   * of the count without it (before the tokenizer counted any messages, only up). On a request whose messages the
   * tokenizer counted as well, what is left after both is the template's share.
   */
  fromUsage(key: string, reported: number, sent: CountedRequest): void {
    if (!(reported > 0)) return;
    const counts = this.model(key);
    if (sent.chars > 200)
      counts.whole = learned(counts.whole, Math.max(0.02, (reported - sent.messageCount * perMessageTokens) / sent.chars));
    const tokenized = counts.tokenized;
    const fixed = sent.tokenized ? tokenized?.fixed.get(sent.tokenized.fixedText) : undefined;
    if (!tokenized || !sent.tokenized || fixed === undefined) return;
    const rest = reported - fixed - sent.messageCount * perMessageTokens;
    const { messageTokens } = sent.tokenized;
    if (tokenized.template === undefined && messageTokens !== undefined) {
      // The tokenizer counted every text of this request: the rest is the template's.
      tokenized.template = Math.max(0, rest - messageTokens);
      return;
    }
    const chars = sent.chars - sent.fixedChars;
    if (chars < learnChars) return;
    const observed = Math.max(0.02, (rest - (tokenized.template ?? 0)) / chars);
    const { messages } = tokenized;
    if (messages.counting !== 'estimate') tokenized.messages = learned(messages, observed);
    else if (observed > messages.tokensPerChar) tokenized.messages = { ...messages, tokensPerChar: observed };
  }

  private model(key: string): ModelCounts {
    let counts = this.byModel.get(key);
    if (!counts) {
      counts = { whole: uncalibrated };
      this.byModel.set(key, counts);
    }
    return counts;
  }
}
