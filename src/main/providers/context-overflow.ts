/*
 * Reads from a server's error whether a request did not fit the model's window, and the sizes the server gives.
 */

/** What a server said about a request that did not fit its window: the numbers, where it gave them. */
export interface ContextOverflow {
  /** The prompt's size in tokens as the server counted it. */
  readonly promptTokens?: number;
  /** The window the server has, in tokens. */
  readonly window?: number;
}

/** One server's wording: a pattern, and which of its groups hold the prompt's size and the window. */
interface Phrasing {
  readonly pattern: RegExp;
  readonly prompt?: number;
  readonly window?: number;
}

/*
 * Each server's words for a request that does not fit, as their sources and error reports show
 * them. Several per server: the wording changed between versions.
 */
const phrasings: readonly Phrasing[] = [
  // llama.cpp server (tools/server/server-context.cpp), since late 2025: a 400 of type exceed_context_size_error.
  { pattern: /request \((\d+) tokens\) exceeds the available context size \((\d+) tokens\)/i, prompt: 1, window: 2 },
  // llama.cpp before that, with the numbers only in the body's n_prompt_tokens and n_ctx.
  { pattern: /the request exceeds the available context size/i },
  // llama.cpp, for inputs it cannot split (embeddings, reranking).
  { pattern: /input \((\d+) tokens\) is larger than the max context size \((\d+) tokens\)/i, prompt: 1, window: 2 },
  { pattern: /input is larger than the max context size/i },
  { pattern: /exceed_context_size_error/i },
  // vLLM: the oldest wording, prompt and answer together.
  {
    pattern: /maximum context length is (\d+) tokens\. However, you requested \d+ tokens \((\d+) in the messages, \d+ in the completion\)/i,
    prompt: 2,
    window: 1,
  },
  // vLLM and OpenAI: the prompt alone is too long.
  { pattern: /maximum context length is (\d+) tokens\. However, your request has (\d+) input tokens/i, prompt: 2, window: 1 },
  { pattern: /maximum context length is (\d+) tokens\. However, your messages resulted in (\d+) tokens/i, prompt: 2, window: 1 },
  // vLLM: the prompt fits, but not with the room asked for the answer.
  {
    pattern: /is too large: \d+\. This model's maximum context length is (\d+) tokens and your request has (\d+) input tokens/i,
    prompt: 2,
    window: 1,
  },
  {
    pattern:
      /maximum context length is (\d+) tokens\. However, you requested \d+ output tokens and your prompt contains (?:at least )?(\d+) input tokens/i,
    prompt: 2,
    window: 1,
  },
  // vLLM's renderer (vllm/renderers/params.py).
  {
    pattern: /You passed (\d+) input tokens and requested \d+ output tokens\. However, the model's context length is only (\d+) tokens/i,
    prompt: 1,
    window: 2,
  },
  {
    pattern: /You passed \d+ input characters and requested \d+ output tokens\. However, the model's context length is only (\d+) tokens/i,
    window: 1,
  },
  // LM Studio 0.3: its own word order, "when context the overflows".
  {
    pattern:
      /Trying to keep the first (\d+) tokens when context the overflows\. However, the model is loaded with context length of only (\d+) tokens/i,
    prompt: 1,
    window: 2,
  },
  // LM Studio later: n_keep is the prompt it must keep, n_ctx the window it loaded.
  {
    pattern: /tokens to keep from the initial prompt is greater than the context length \(n_keep: (\d+)\s*>=?\s*n_ctx: (\d+)\)/i,
    prompt: 1,
    window: 2,
  },
  { pattern: /tokens to keep from the initial prompt is greater than the context length/i },
  // LM Studio, for models that cannot shift their context during an answer.
  {
    pattern: /Reached context length of (\d+) tokens with model .* that does not currently support mid-generation context overflow/i,
    window: 1,
  },
  { pattern: /Context size has been exceeded/i },
  // Anthropic: a 400 invalid_request_error.
  { pattern: /prompt is too long: (\d+) tokens > (\d+) maximum/i, prompt: 1, window: 2 },
  { pattern: /input length and `?max_tokens`? exceed context limit: (\d+) \+ \d+ > (\d+)/i, prompt: 1, window: 2 },
  // Ollama: the number is how far over, not the window, so it is not read.
  { pattern: /prompt too long; exceeded max context length/i },
  { pattern: /the input length exceeds the context length/i },
  { pattern: /the prompt is longer than the context length/i },
  // OpenAI's code, which servers copying its API send as well.
  { pattern: /context_length_exceeded/i },
];

/** Statuses an overflow never comes with: a rate limit that mentions tokens is not one. */
const notOverflow = new Set([401, 403, 404, 408, 429]);

/** A count the server wrote in its JSON (llama.cpp's n_prompt_tokens and n_ctx), quoted or escaped. */
function field(text: string, name: string): number | undefined {
  const match = new RegExp(`${name}\\\\?"?\\s*:\\s*(\\d+)`).exec(text);
  return match?.[1] === undefined ? undefined : Number(match[1]);
}

function group(match: RegExpExecArray, index: number | undefined): number | undefined {
  if (index === undefined) return undefined;
  const value = Number(match[index]);
  return Number.isSafeInteger(value) && value > 0 ? value : undefined;
}

/**
 * Whether `text` (a server's error message, or its error body as JSON) says the request did not
 * fit the model's window, and the numbers it gives: the prompt's size and the window, where the
 * server says them. Null when it is some other failure. A 413 is the request's byte size
 * (Anthropic's request_too_large): it did not fit either, without numbers.
 */
export function overflowFrom(text: string, status?: number): ContextOverflow | null {
  if (status !== undefined && notOverflow.has(status)) return null;
  for (const phrasing of phrasings) {
    const match = phrasing.pattern.exec(text);
    if (!match) continue;
    const promptTokens = group(match, phrasing.prompt) ?? field(text, 'n_prompt_tokens');
    const window = group(match, phrasing.window) ?? field(text, 'n_ctx');
    return { ...(promptTokens === undefined ? {} : { promptTokens }), ...(window === undefined ? {} : { window }) };
  }
  if (status === 413 || /request_too_large/.test(text)) return {};
  return null;
}
