import type { LocalServerConfig } from './local-servers';
import { countPromptTokens, type CountedMessage } from './tokens';

/**
 * How a server refuses a prompt that does not fit: an HTTP status and body, or (LM Studio, when
 * streaming) a 200 whose stream carries only the error.
 */
export type Refusal =
  { readonly kind: 'status'; readonly status: number; readonly body: unknown } | { readonly kind: 'in_stream'; readonly body: unknown };

const messagesOf = (body: Record<string, unknown>): CountedMessage[] =>
  Array.isArray(body['messages']) ? (body['messages'] as CountedMessage[]) : [];

/**
 * The prompt's size as the server's chat template would make it: every message, the system prompt
 * (a message of its own in OpenAI's protocol, a field in Anthropic's), tool calls and tool definitions.
 */
export function promptTokensOf(anthropic: boolean, body: Record<string, unknown>): number {
  const system = anthropic && body['system'] !== undefined ? [{ role: 'system', content: body['system'] }] : [];
  return countPromptTokens([...system, ...messagesOf(body)], body['tools']);
}

function answerRoom(body: Record<string, unknown>): number | undefined {
  const room = body['max_completion_tokens'] ?? body['max_tokens'];
  return typeof room === 'number' ? room : undefined;
}

/**
 * llama.cpp (tools/server/server-context.cpp): a prompt of `n_ctx` tokens or more is refused before
 * anything is generated, with a 400 of type exceed_context_size_error and the two counts as fields,
 * even for a stream (the first result is sent as a plain response). Room for the answer is not checked.
 */
function llamaCpp(prompt: number, window: number): Refusal | null {
  if (prompt < window) return null;
  return {
    kind: 'status',
    status: 400,
    body: {
      error: {
        code: 400,
        message: `request (${prompt} tokens) exceeds the available context size (${window} tokens), try increasing it`,
        type: 'exceed_context_size_error',
        n_prompt_tokens: prompt,
        n_ctx: window,
      },
    },
  };
}

/** vLLM's validation (serving_engine.py): the prompt alone, then the prompt with the room asked for the answer. */
function vllm(prompt: number, window: number, room: number | undefined): Refusal | null {
  let message: string;
  if (prompt >= window)
    message = `This model's maximum context length is ${window} tokens. However, your request has ${prompt} input tokens. Please reduce the length of the input messages.`;
  else if (room !== undefined && prompt + room > window)
    message = `'max_tokens' or 'max_completion_tokens' is too large: ${room}. This model's maximum context length is ${window} tokens and your request has ${prompt} input tokens (${room} > ${window} - ${prompt}).`;
  else return null;
  return { kind: 'status', status: 400, body: { error: { message, type: 'BadRequestError', param: null, code: 400 } } };
}

/**
 * LM Studio: the prompt it must keep is longer than the window it loaded. Streaming, the error comes
 * in the stream as `{"error": {"message": …}}`; otherwise as a 400 whose `error` is the bare text.
 */
function lmStudio(prompt: number, window: number, stream: boolean, older: boolean): Refusal | null {
  if (prompt < window) return null;
  const message = older
    ? `Trying to keep the first ${prompt} tokens when context the overflows. However, the model is loaded with context length of only ${window} tokens, which is not enough. Try to load the model with a larger context length, or provide a shorter input`
    : `The number of tokens to keep from the initial prompt is greater than the context length (n_keep: ${prompt}>= n_ctx: ${window}). Try to load the model with a larger context length, or provide a shorter input.`;
  return stream ? { kind: 'in_stream', body: { error: { message } } } : { kind: 'status', status: 400, body: { error: message } };
}

/** The Anthropic Messages API: a 400 invalid_request_error, for the prompt alone and with `max_tokens`. */
function anthropic(prompt: number, window: number, room: number | undefined): Refusal | null {
  let message: string;
  if (prompt > window) message = `prompt is too long: ${prompt} tokens > ${window} maximum`;
  else if (room !== undefined && prompt + room > window)
    message = `input length and \`max_tokens\` exceed context limit: ${prompt} + ${room} > ${window}, decrease input length or \`max_tokens\` and try again`;
  else return null;
  return { kind: 'status', status: 400, body: { type: 'error', error: { type: 'invalid_request_error', message } } };
}

/**
 * How the server refuses this request, or null when it fits. Only a server given a `contextWindow`
 * enforces one; the Anthropic route always answers as Anthropic, the OpenAI one as the personality.
 */
export function refusalFor(config: LocalServerConfig, isAnthropic: boolean, body: Record<string, unknown>, prompt: number): Refusal | null {
  const window = config.contextWindow;
  if (window === undefined) return null;
  if (isAnthropic) return anthropic(prompt, window, answerRoom(body));
  switch (config.personality) {
    case 'llama.cpp':
      return llamaCpp(prompt, window);
    case 'vllm':
      return vllm(prompt, window, answerRoom(body));
    case 'lmstudio':
    case 'lmstudio-0.3':
      return lmStudio(prompt, window, body['stream'] === true, config.personality === 'lmstudio-0.3');
  }
}
