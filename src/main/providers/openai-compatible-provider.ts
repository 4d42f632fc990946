/*
 * Any server of the OpenAI chat-completions protocol as a model provider: LM Studio, llama.cpp's server, vLLM, Ollama
 * and the like.
 */

import OpenAI, { APIConnectionError } from 'openai';
import type {
  ChatCompletionChunk,
  ChatCompletionCreateParamsStreaming,
  ChatCompletionMessageParam,
} from 'openai/resources/chat/completions';
import type { ModelInfo } from '../../shared/domain';
import { ModelError, type ErrorInfo } from '../../shared/errors';
import type { ChatMessage, ModelProvider, ModelRequest, ModelStreamEvent, ModelWindow, StopReason } from '../agent/ports/model-provider';
import { LlamaCppPromptCache, type CacheFields } from './llama-cpp-cache';
import { LlamaCppProps } from './llama-cpp-props';
import { countWithLlamaCpp } from './llama-cpp-tokenizer';
import { withNestedErrorBody } from './nested-error-body';
import { IdleWatchdog, classifyProviderError, toModelError } from './provider-errors';
import { serverRoot, type RouteContext } from './server-routes';
import { ThinkTagSplitters, llamaCppOpening } from './think-openings';
import { ThinkTagSplitter, contentEvents } from './think-tags';
import { ToolCallAssembly } from './tool-call-assembly';
import { UsageTally, timingsOf } from './usage-tally';
import { isLlamaCpp, probeWindow } from './window-probes';

export interface OpenAICompatibleOptions {
  /** Base URL including the API prefix, e.g. http://127.0.0.1:11434/v1. */
  readonly baseUrl: string;
  readonly apiKey?: string | null;
  /** Longest wait for the next chunk (first-token latency of a big local prompt included). */
  readonly idleTimeoutMs?: number;
  /** Longest wait for one of the routes asked about a model's window; a local server answers in milliseconds. */
  readonly probeTimeoutMs?: number;
  /** Longest wait for llama.cpp's tokenizer. */
  readonly tokenizeTimeoutMs?: number;
  readonly fetch?: typeof fetch;
}

/** Delta fields some servers add: llama.cpp and vLLM send `reasoning_content`, Ollama and LM Studio `reasoning`. */
type DeltaWithReasoning = ChatCompletionChunk.Choice.Delta & { reasoning_content?: unknown; reasoning?: unknown };

/**
 * The request's messages as chat-completions messages. Each message's form is kept by the message it came from, so a
 * conversation that grew by a step converts only that step: every request carries the whole conversation, and building
 * it again each time (an image's data URL included) was most of what a long session allocated per step.
 */
function toOpenAIMessages(
  request: ModelRequest,
  converted: WeakMap<ChatMessage, ChatCompletionMessageParam>,
): ChatCompletionMessageParam[] {
  const messages: ChatCompletionMessageParam[] = [];
  if (request.system) messages.push({ role: 'system', content: request.system });
  for (const message of request.messages) {
    let form = converted.get(message);
    if (!form) {
      form = toOpenAIMessage(message);
      converted.set(message, form);
    }
    messages.push(form);
  }
  return messages;
}

/** One message as a chat-completions message. */
function toOpenAIMessage(message: ChatMessage): ChatCompletionMessageParam {
  if (message.role === 'user') {
    const images = message.images ?? [];
    return images.length === 0
      ? { role: 'user', content: message.content }
      : {
          role: 'user',
          content: [
            { type: 'text', text: message.content },
            ...images.map((image) => ({
              type: 'image_url' as const,
              image_url: { url: `data:${image.mediaType};base64,${image.data}` },
            })),
          ],
        };
  }
  if (message.role === 'assistant')
    return {
      role: 'assistant',
      content: message.content,
      ...(message.toolCalls && message.toolCalls.length > 0
        ? {
            tool_calls: message.toolCalls.map((call) => ({
              id: call.id,
              type: 'function' as const,
              function: { name: call.name, arguments: call.arguments },
            })),
          }
        : {}),
    };
  return { role: 'tool', tool_call_id: message.toolCallId, content: message.content };
}

/** The events of one chunk's delta: reasoning, text (inline `<think>` told apart), and pieces of tool calls. */
function* deltaEvents(
  delta: DeltaWithReasoning | undefined,
  content: ThinkTagSplitter,
  calls: ToolCallAssembly,
): Iterable<ModelStreamEvent> {
  if (!delta) return;
  const reasoning = delta.reasoning_content ?? delta.reasoning;
  if (typeof reasoning === 'string' && reasoning.length > 0) yield { type: 'reasoning_delta', text: reasoning };
  if (typeof delta.content === 'string' && delta.content.length > 0) yield* contentEvents(content.push(delta.content));
  for (const call of delta.tool_calls ?? [])
    yield* calls.add({ index: call.index, id: call.id, name: call.function?.name, arguments: call.function?.arguments });
}

function stopReason(finish: string): StopReason {
  if (finish === 'stop') return 'end_turn';
  if (finish === 'tool_calls' || finish === 'function_call') return 'tool_use';
  if (finish === 'length') return 'max_tokens';
  return 'other';
}

/**
 * Ollama, LM Studio, llama.cpp server, vLLM and any other server of the chat-completions protocol, through the official SDK.
 *
 * Only llama.cpp has a tokenizer route, so `countTokens` works only there: the provider learns what
 * the server is from `window()`, or from one look at `/props` the first time it is asked to count,
 * and on any other server fails at once with a `ModelError`. `hasTokenizer()` answers the question
 * without counting, for a caller that wants to know before it asks.
 */
export class OpenAICompatibleProvider implements ModelProvider {
  readonly kind = 'openai-compatible' as const;
  private readonly client: OpenAI;
  private readonly idleTimeoutMs: number;
  private readonly routes: RouteContext;
  private readonly tokenizeTimeoutMs: number;
  /** Each message's chat-completions form, kept while the message is (see `toOpenAIMessages`). */
  private readonly converted = new WeakMap<ChatMessage, ChatCompletionMessageParam>();
  /** Whether the server is llama.cpp, once known; dropped when its tokenizer route goes missing. */
  private llamaCpp: Promise<boolean> | null = null;
  /** llama.cpp's `/props`, read once for the prompt cache and the think tags both; forgotten when the server went away. */
  private readonly props: LlamaCppProps;
  /** llama-server's prompt cache: `cache_prompt`, a slot per line of requests, and nothing for other servers. */
  private readonly promptCache: LlamaCppPromptCache;
  /** Inline reasoning told apart per model, knowing which templates open it (llama.cpp's `/props`). */
  private readonly thinkTags: ThinkTagSplitters;

  constructor(private readonly options: OpenAICompatibleOptions) {
    this.idleTimeoutMs = options.idleTimeoutMs ?? 10 * 60_000;
    this.tokenizeTimeoutMs = options.tokenizeTimeoutMs ?? 5_000;
    const baseFetch = options.fetch ?? ((input: Parameters<typeof fetch>[0], init?: RequestInit) => fetch(input, init));
    this.routes = {
      root: serverRoot(options.baseUrl),
      fetch: baseFetch,
      headers: options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {},
      timeoutMs: options.probeTimeoutMs ?? 3_000,
    };
    this.props = new LlamaCppProps(this.routes);
    this.promptCache = new LlamaCppPromptCache(this.props);
    this.thinkTags = new ThinkTagSplitters(llamaCppOpening(this.props));
    this.client = new OpenAI({
      baseURL: options.baseUrl,
      // Local servers ignore the key, but the SDK requires one.
      apiKey: options.apiKey ?? 'not-needed',
      maxRetries: 0,
      timeout: this.idleTimeoutMs,
      fetch: withNestedErrorBody(baseFetch),
    });
  }

  async *stream(request: ModelRequest, signal: AbortSignal): AsyncIterable<ModelStreamEvent> {
    const watchdog = new IdleWatchdog(signal, this.idleTimeoutMs);
    const calls = new ToolCallAssembly();
    const usage = new UsageTally();
    const content = await this.thinkTags.splitter(request.model, watchdog.signal);
    let finish: string | null = null;
    const cache = await this.promptCache.use(request, watchdog.signal);
    try {
      const stream = await this.open(request, cache.fields, watchdog.signal);
      for await (const chunk of stream) {
        watchdog.touch();
        if (chunk.usage)
          usage.report({
            promptTokens: chunk.usage.prompt_tokens,
            completionTokens: chunk.usage.completion_tokens,
            cachedTokens: chunk.usage.prompt_tokens_details?.cached_tokens,
          });
        const timings = timingsOf(chunk);
        if (timings) usage.reportTimings(timings);
        const choice = chunk.choices?.[0];
        if (!choice) continue;
        yield* deltaEvents(choice.delta as DeltaWithReasoning | undefined, content, calls);
        if (choice.finish_reason) finish = choice.finish_reason;
      }
      // The SDK ends the iteration quietly when the request is aborted, so an abort is checked here.
      if (watchdog.signal.aborted) throw watchdog.signal.reason;
      yield* contentEvents(content.end());
      yield* usage.event();
      if (finish === null) {
        yield { type: 'error', error: this.unfinished(calls.size) };
        return;
      }
      yield* calls.ready();
      yield { type: 'done', stopReason: calls.size > 0 && finish !== 'length' ? 'tool_use' : stopReason(finish) };
    } catch (error) {
      // The server may come back as another, or with other slots: its `/props` is read again.
      if (error instanceof APIConnectionError) this.props.forget();
      yield* usage.event();
      const classified = classifyProviderError(error, this.options.baseUrl, watchdog.signal);
      // What the classifier found is the event: the error, and when said, the wait and the window's figures.
      yield { type: 'error', ...classified };
    } finally {
      cache.end();
      watchdog.dispose();
    }
  }

  /**
   * Sends the request with llama-server's cache fields; when the server refuses them (see `LlamaCppPromptCache.refused`),
   * once more without them, so that a request never fails for a slot.
   */
  private async open(request: ModelRequest, fields: CacheFields, signal: AbortSignal): Promise<AsyncIterable<ChatCompletionChunk>> {
    const body: ChatCompletionCreateParamsStreaming & CacheFields = { ...this.body(request), ...fields };
    try {
      return await this.client.chat.completions.create(body, { signal });
    } catch (error) {
      if (Object.keys(fields).length === 0 || !this.promptCache.refused(error)) throw error;
      return await this.client.chat.completions.create(this.body(request), { signal });
    }
  }

  private body(request: ModelRequest): ChatCompletionCreateParamsStreaming {
    return {
      model: request.model,
      messages: toOpenAIMessages(request, this.converted),
      stream: true,
      stream_options: { include_usage: true },
      ...(request.maxTokens === undefined ? {} : { max_tokens: request.maxTokens }),
      ...(request.temperature === undefined ? {} : { temperature: request.temperature }),
      ...(request.tools && request.tools.length > 0
        ? {
            tools: request.tools.map((tool) => ({
              type: 'function' as const,
              function: { name: tool.name, description: tool.description, parameters: tool.inputSchema },
            })),
          }
        : {}),
    };
  }

  /**
   * A stream that ended without a finish reason was cut: the SDK ends quietly when the body ends without `[DONE]`,
   * and old llama-server builds wrote an error as an `error:` line the SDK skips, then `[DONE]`. Calls begun in it
   * may lack the end of their arguments, so none is handed on.
   */
  private unfinished(calls: number): ErrorInfo {
    const dropped = calls > 0 ? ` ${calls} tool call${calls === 1 ? '' : 's'} begun in it ${calls === 1 ? 'was' : 'were'} not run.` : '';
    return {
      code: 'model_stream_interrupted',
      message: `The answer from ${this.options.baseUrl} ended before the server said it was finished.${dropped}`,
      retryable: true,
    };
  }

  async listModels(signal: AbortSignal): Promise<ModelInfo[]> {
    try {
      const page = await this.client.models.list({ signal });
      const models: ModelInfo[] = [];
      for (const model of page.data) {
        // llama.cpp reports `meta.n_ctx_train`; vLLM `max_model_len`; LM Studio `max_context_length`.
        const extra = model as unknown as { max_model_len?: unknown; max_context_length?: unknown; meta?: { n_ctx_train?: unknown } };
        const context = [extra.max_model_len, extra.max_context_length, extra.meta?.n_ctx_train].find(
          (value): value is number => typeof value === 'number' && value > 0,
        );
        models.push(context === undefined ? { id: model.id } : { id: model.id, contextLength: Math.floor(context) });
      }
      return models;
    } catch (error) {
      throw toModelError(error, this.options.baseUrl, signal);
    }
  }

  /**
   * What the server says about the window it runs `model` with: llama.cpp's `/props`, LM Studio's
   * model lists, or `/v1/models`, whichever answers (see `probeWindow`). Null when none says.
   */
  async window(model: string, signal: AbortSignal): Promise<ModelWindow | null> {
    const probed = probeWindow({ baseUrl: this.options.baseUrl, model, context: this.routes, signal });
    this.remember(probed.then((result) => result.llamaCpp));
    return (await probed).window;
  }

  /**
   * Whether the model takes images: only when its `/v1/models` entry says so, as llama.cpp's does (`capabilities`
   * with `multimodal`) and as some gateways do (`vision`); LM Studio's `type: "vlm"` too. Otherwise no, since an
   * image sent to a text-only model is refused or, worse, silently dropped.
   */
  async takesImages(model: string, signal: AbortSignal): Promise<boolean> {
    try {
      const page = await this.client.models.list({ signal });
      const entry = page.data.find((candidate) => candidate.id === model) as
        { capabilities?: unknown; type?: unknown; architecture?: { input_modalities?: unknown } } | undefined;
      if (!entry) return false;
      const said = [entry.capabilities, entry.architecture?.input_modalities].flatMap((value) => (Array.isArray(value) ? value : []));
      return entry.type === 'vlm' || said.some((value) => value === 'vision' || value === 'multimodal' || value === 'image');
    } catch (error) {
      throw toModelError(error, this.options.baseUrl, signal);
    }
  }

  /** Whether the server counts tokens (it is llama.cpp); asks `/props` once, then remembers. */
  hasTokenizer(signal: AbortSignal): Promise<boolean> {
    return this.llamaCpp ?? this.remember(isLlamaCpp(this.routes, this.options.baseUrl, signal));
  }

  /** Keeps what a look at the server found; a look that failed says nothing, so the next one asks again. */
  private remember(known: Promise<boolean>): Promise<boolean> {
    this.llamaCpp = known;
    known.catch(() => {
      if (this.llamaCpp === known) this.llamaCpp = null;
    });
    return known;
  }

  /** llama-server's slots; null for another server. */
  concurrency(signal: AbortSignal): Promise<number | null> {
    return this.promptCache.slots(signal);
  }

  /** Counts `text` with llama.cpp's `/tokenize`; on another server fails at once with a `ModelError`. */
  async countTokens(_model: string, text: string, signal: AbortSignal): Promise<number> {
    if (!(await this.hasTokenizer(signal)))
      throw new ModelError(
        'model_request_rejected',
        `${this.options.baseUrl} cannot count tokens: only a llama.cpp server has a tokenizer route (/tokenize), and this server is not one.`,
      );
    try {
      return await countWithLlamaCpp(text, { ...this.routes, timeoutMs: this.tokenizeTimeoutMs }, signal);
    } catch (error) {
      // The server may have been replaced by another on the same port: ask again next time.
      this.llamaCpp = null;
      throw error;
    }
  }
}
