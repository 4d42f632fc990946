/*
 * The provider interface and its normalized stream: what every model endpoint speaks to the runtime.
 */
import type { ErrorInfo } from '../../../shared/errors';
import type { ImageMediaType } from '../../../shared/attachments';
import type { ModelInfo, ProviderKind } from '../../../shared/domain';

/** An image given to the model with a message of the person's (an attached file). */
export interface ImageContent {
  /** The file's workspace path or dropped name, for the model and for errors. */
  readonly path: string;
  readonly mediaType: ImageMediaType;
  /** The bytes, base64. */
  readonly data: string;
}

/** A message in the conversation sent to a model. */
export type ChatMessage =
  | {
      readonly role: 'user';
      readonly content: string;
      readonly images?: readonly ImageContent[];
      /** Memories recalled for the person's message before it, not a message of theirs; a request joins the two. */
      readonly recalled?: true;
    }
  | {
      readonly role: 'assistant';
      readonly content: string;
      readonly toolCalls?: readonly ToolCallRequest[];
      /** The response's extended thinking, kept to be sent back with it (Anthropic). */
      readonly thinking?: ResponseThinking;
    }
  | { readonly role: 'tool'; readonly toolCallId: string; readonly content: string; readonly isError?: boolean };

export interface ToolCallRequest {
  readonly id: string;
  readonly name: string;
  readonly arguments: string;
}

/**
 * A block of extended thinking as the model wrote it. The API checks the signature (or the encrypted
 * `data` of a redacted block) when the block comes back, so it is kept byte for byte.
 */
export type ThinkingBlock =
  | { readonly type: 'thinking'; readonly thinking: string; readonly signature: string }
  | { readonly type: 'redacted_thinking'; readonly data: string };

/** The thinking blocks of one response, with the endpoint and model that wrote them: only that model accepts them back. */
export interface ResponseThinking {
  readonly providerId: string;
  readonly model: string;
  readonly blocks: readonly ThinkingBlock[];
}

export interface ToolSpec {
  readonly name: string;
  readonly description: string;
  /** JSON Schema of the tool input. */
  readonly inputSchema: Record<string, unknown>;
  /** Where the tool comes from (an MCP server's name); built-in when absent. Not sent to the model. */
  readonly group?: string;
  /** The tool only reads. Not sent to the model. */
  readonly readOnly?: boolean;
  /**
   * A built-in tool that a window too small for every definition lists in the catalogue instead (described on request),
   * as it does another server's tools: handing work to sub-agents. Not sent to the model.
   */
  readonly optional?: boolean;
}

export interface ModelRequest {
  readonly model: string;
  readonly system?: string;
  readonly messages: readonly ChatMessage[];
  readonly tools?: readonly ToolSpec[];
  /** Room for the answer, thinking included; the provider's default when absent. */
  readonly maxTokens?: number;
  /**
   * Extended thinking with this budget, in tokens, counted within `maxTokens`. Only the Anthropic
   * provider sends it; the others ignore it.
   */
  readonly thinking?: { readonly budgetTokens: number };
  /** Sampling temperature from the profile; the server's default when absent. */
  readonly temperature?: number;
  /**
   * The window the app chose for this request, in tokens. Servers that take the window per request
   * (Ollama's `num_ctx`) are sent it; the others have loaded theirs already.
   */
  readonly contextWindow?: number;
  /**
   * The line of requests this one continues: a session's conversation, or a side line of it (its separate
   * summaries, a sub-agent). Servers that keep one evaluated prompt per slot or sequence keep one per key, so
   * the next request with the same key reads only what was added after their common beginning. Absent: any.
   */
  readonly cacheKey?: string;
}

/** What a server says about one model's context window. */
export interface ModelWindow {
  /**
   * The window the server has loaded the model with, in tokens (for Ollama, which takes it per
   * request: the one it runs the model with now); null when the server does not say.
   */
  readonly loaded: number | null;
  /** The window the model was trained for, when the server reports it. */
  readonly trained: number | null;
  /** Who said so, in words: "reported by llama.cpp". */
  readonly source: string;
  /** Where exactly, for whoever checks: the routes and fields read ("/props; trained size from /v1/models meta.n_ctx_train"). */
  readonly route?: string;
}

export type StopReason = 'end_turn' | 'tool_use' | 'max_tokens' | 'other';

/** The normalized stream every provider produces. It always ends with `done` or `error`. */
export type ModelStreamEvent =
  | { readonly type: 'text_delta'; readonly text: string }
  /** `inline`: the server left the reasoning in the answer's text, in `<think>` tags, and the provider took it out. */
  | { readonly type: 'reasoning_delta'; readonly text: string; readonly inline?: boolean }
  /** A thinking block is complete: its whole text and signature (its deltas came as `reasoning_delta`), or a redacted block. */
  | { readonly type: 'reasoning_block'; readonly block: ThinkingBlock }
  | { readonly type: 'tool_call_started'; readonly index: number; readonly id: string; readonly name: string }
  | { readonly type: 'tool_call_arguments_delta'; readonly index: number; readonly id: string; readonly delta: string }
  | { readonly type: 'tool_call_ready'; readonly index: number; readonly id: string; readonly name: string; readonly arguments: string }
  /**
   * What the answer cost in tokens. `inputTokens` is the whole prompt, cached part included. `cacheReadTokens`: of
   * those, how many the server took from its prompt cache instead of reading them again (llama.cpp's `cache_n`,
   * Anthropic's `cache_read_input_tokens`, OpenAI's `cached_tokens`); absent when the server does not say.
   * `cacheWriteTokens`: how many it wrote to a cache that bills for writing (Anthropic's `cache_creation_input_tokens`).
   */
  | {
      readonly type: 'usage';
      readonly inputTokens: number;
      readonly outputTokens: number;
      readonly cacheReadTokens?: number;
      readonly cacheWriteTokens?: number;
    }
  | { readonly type: 'retry_scheduled'; readonly attempt: number; readonly delayMs: number; readonly error: ErrorInfo }
  | { readonly type: 'done'; readonly stopReason: StopReason }
  /** `window`, `promptTokens`: the server refused the request as too large and said how large its window and the prompt are. */
  | {
      readonly type: 'error';
      readonly error: ErrorInfo;
      readonly retryAfterMs?: number;
      readonly window?: number;
      readonly promptTokens?: number;
    };

/** A model endpoint. Implementations are named by mechanism (Anthropic SDK, OpenAI-compatible SDK). */
export interface ModelProvider {
  readonly kind: ProviderKind;
  /** Streams one response. Honours `signal`; never throws: failures arrive as an `error` event. */
  stream(request: ModelRequest, signal: AbortSignal): AsyncIterable<ModelStreamEvent>;
  /** Lists the models the endpoint serves. Throws a `ModelError` on failure. */
  listModels(signal: AbortSignal): Promise<ModelInfo[]>;
  /** What the server reports about a model's window; null when it reports nothing. Throws a `ModelError` when unreachable. */
  window?(model: string, signal: AbortSignal): Promise<ModelWindow | null>;
  /**
   * Whether the model takes images in a message, as the server says (Ollama's `vision` capability); a provider
   * without it takes none. Throws a `ModelError` when the server cannot be asked.
   */
  takesImages?(model: string, signal: AbortSignal): Promise<boolean>;
  /** Counts the tokens of `text` with the server's own tokenizer (llama.cpp `/tokenize`). Throws a `ModelError` on failure. */
  countTokens?(model: string, text: string, signal: AbortSignal): Promise<number>;
  /**
   * How many requests the server answers at once, each keeping its own prompt cache (llama-server's slots), when it says;
   * null when it does not. More at once than this only wait for each other and push each other's prompts out. Never throws.
   */
  concurrency?(signal: AbortSignal): Promise<number | null>;
}
