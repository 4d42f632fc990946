/**
 * The scripted server's tokenizer: deterministic, and deliberately not characters divided by four,
 * so the app's estimate has to be calibrated against what the server reports, as with a real one.
 * A word piece is up to six letters with its leading space, a number up to three digits, any other
 * character one token, and a run of whitespace one token.
 */
const piece = /\s?[A-Za-z]{1,6}|\s?\d{1,3}|\s+|[^\sA-Za-z\d]/g;

export function countTokens(text: string): number {
  let count = 0;
  piece.lastIndex = 0;
  while (piece.exec(text) !== null) count += 1;
  return count;
}

/** The tokens and their text, as llama.cpp's `/tokenize` gives them with `with_pieces`. */
export function tokenize(text: string): string[] {
  return text.match(piece) ?? [];
}

/** Per message, the chat template's role markers. */
const perMessage = 4;

/** A chat message in any of the protocols the server speaks, reduced to what is counted. */
export interface CountedMessage {
  readonly role: string;
  readonly content?: unknown;
  readonly tool_calls?: unknown;
}

/** A JSON replacer that leaves Anthropic's cache breakpoints out: they say where to cache, the model never reads them. */
export const withoutBreakpoints = (key: string, value: unknown): unknown => (key === 'cache_control' ? undefined : value);

/** The prompt's size as a chat template would make it: every message's text, tool calls and tool definitions. */
export function countPromptTokens(messages: readonly CountedMessage[], tools: unknown): number {
  let count = 0;
  for (const message of messages) {
    const content = message.content;
    count += perMessage + countTokens(typeof content === 'string' ? content : JSON.stringify(content ?? '', withoutBreakpoints));
    if (message.tool_calls !== undefined) count += countTokens(JSON.stringify(message.tool_calls));
  }
  if (Array.isArray(tools) && tools.length > 0) count += countTokens(JSON.stringify(tools, withoutBreakpoints));
  return count;
}
