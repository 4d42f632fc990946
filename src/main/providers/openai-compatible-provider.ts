import OpenAI from 'openai';
import type { ChatCompletionChunk, ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import type { ModelInfo } from '../../shared/domain';
import { ModelError } from '../../shared/errors';
import type { ModelProvider, ModelRequest, ModelStreamEvent, StopReason } from '../agent/model-provider';
import { IdleWatchdog, classifyProviderError } from './provider-errors';

export interface OpenAICompatibleOptions {
  /** Base URL including the API prefix, e.g. http://127.0.0.1:11434/v1. */
  readonly baseUrl: string;
  readonly apiKey?: string | null;
  /** Longest wait for the next chunk (first-token latency of a big local prompt included). */
  readonly idleTimeoutMs?: number;
  readonly fetch?: typeof fetch;
}

/** Delta fields some servers add: llama.cpp and vLLM send `reasoning_content`, Ollama and LM Studio `reasoning`. */
type DeltaWithReasoning = ChatCompletionChunk.Choice.Delta & { reasoning_content?: unknown; reasoning?: unknown };

function toOpenAIMessages(request: ModelRequest): ChatCompletionMessageParam[] {
  const messages: ChatCompletionMessageParam[] = [];
  if (request.system) messages.push({ role: 'system', content: request.system });
  for (const message of request.messages) {
    if (message.role === 'user') messages.push({ role: 'user', content: message.content });
    else if (message.role === 'assistant') {
      messages.push({
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
      });
    } else messages.push({ role: 'tool', tool_call_id: message.toolCallId, content: message.content });
  }
  return messages;
}

function stopReason(finish: string | null | undefined): StopReason {
  if (finish === 'stop') return 'end_turn';
  if (finish === 'tool_calls' || finish === 'function_call') return 'tool_use';
  if (finish === 'length') return 'max_tokens';
  return 'other';
}

/** Ollama, LM Studio, llama.cpp server, vLLM and any other server of the chat-completions protocol, through the official SDK. */
export class OpenAICompatibleProvider implements ModelProvider {
  readonly kind = 'openai-compatible' as const;
  private readonly client: OpenAI;
  private readonly idleTimeoutMs: number;

  constructor(private readonly options: OpenAICompatibleOptions) {
    this.idleTimeoutMs = options.idleTimeoutMs ?? 10 * 60_000;
    this.client = new OpenAI({
      baseURL: options.baseUrl,
      // Local servers ignore the key, but the SDK requires one.
      apiKey: options.apiKey ?? 'not-needed',
      maxRetries: 0,
      timeout: this.idleTimeoutMs,
      ...(options.fetch ? { fetch: options.fetch } : {}),
    });
  }

  async *stream(request: ModelRequest, signal: AbortSignal): AsyncIterable<ModelStreamEvent> {
    const watchdog = new IdleWatchdog(signal, this.idleTimeoutMs);
    const calls = new Map<number, { id: string; name: string; arguments: string }>();
    let finish: string | null | undefined;
    try {
      const stream = await this.client.chat.completions.create(
        {
          model: request.model,
          messages: toOpenAIMessages(request),
          stream: true,
          stream_options: { include_usage: true },
          ...(request.maxTokens === undefined ? {} : { max_tokens: request.maxTokens }),
          ...(request.tools && request.tools.length > 0
            ? {
                tools: request.tools.map((tool) => ({
                  type: 'function' as const,
                  function: { name: tool.name, description: tool.description, parameters: tool.inputSchema },
                })),
              }
            : {}),
        },
        { signal: watchdog.signal },
      );
      for await (const chunk of stream) {
        watchdog.touch();
        if (chunk.usage)
          yield { type: 'usage', inputTokens: chunk.usage.prompt_tokens ?? 0, outputTokens: chunk.usage.completion_tokens ?? 0 };
        const choice = chunk.choices?.[0];
        if (!choice) continue;
        const delta = choice.delta as DeltaWithReasoning | undefined;
        const reasoning = delta?.reasoning_content ?? delta?.reasoning;
        if (typeof reasoning === 'string' && reasoning.length > 0) yield { type: 'reasoning_delta', text: reasoning };
        if (typeof delta?.content === 'string' && delta.content.length > 0) yield { type: 'text_delta', text: delta.content };
        for (const call of delta?.tool_calls ?? []) {
          let known = calls.get(call.index);
          if (!known) {
            known = { id: call.id ?? `call_${call.index}`, name: call.function?.name ?? '', arguments: '' };
            calls.set(call.index, known);
            yield { type: 'tool_call_started', index: call.index, id: known.id, name: known.name };
          }
          const piece = call.function?.arguments;
          if (piece) {
            known.arguments += piece;
            yield { type: 'tool_call_arguments_delta', index: call.index, id: known.id, delta: piece };
          }
        }
        if (choice.finish_reason) finish = choice.finish_reason;
      }
      // The SDK ends the iteration quietly when the request is aborted, so an abort is checked here.
      if (watchdog.signal.aborted) throw watchdog.signal.reason;
      for (const [index, call] of calls)
        yield { type: 'tool_call_ready', index, id: call.id, name: call.name, arguments: call.arguments || '{}' };
      yield { type: 'done', stopReason: calls.size > 0 && finish !== 'length' ? 'tool_use' : stopReason(finish) };
    } catch (error) {
      const classified = classifyProviderError(error, this.options.baseUrl, watchdog.signal);
      yield {
        type: 'error',
        error: classified.error,
        ...(classified.retryAfterMs === undefined ? {} : { retryAfterMs: classified.retryAfterMs }),
      };
    } finally {
      watchdog.dispose();
    }
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
      const classified = classifyProviderError(error, this.options.baseUrl, signal);
      throw new ModelError(classified.error.code, classified.error.message, { retryable: classified.error.retryable ?? false });
    }
  }
}
