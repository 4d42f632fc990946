/*
 * The Anthropic Messages API as a model provider, through the official SDK, with extended thinking and the prompt cache.
 */

import Anthropic from '@anthropic-ai/sdk';
import { thinkingBudgetLimits, type ModelInfo } from '../../shared/domain';
import { ModelError, type ErrorInfo } from '../../shared/errors';
import type { ModelProvider, ModelRequest, ModelStreamEvent, ModelWindow, StopReason, ThinkingBlock } from '../agent/ports/model-provider';
import { conversationWithBreakpoints, systemWithBreakpoint, toolsWithBreakpoint } from './anthropic-breakpoints';
import { toAnthropicMessages } from './anthropic-messages';
import { AnthropicUsage } from './anthropic-usage';
import { IdleWatchdog, classifyProviderError, toModelError } from './provider-errors';

export interface AnthropicOptions {
  /** The API root without `/v1`, e.g. https://api.anthropic.com. */
  readonly baseUrl: string;
  readonly apiKey: string | null;
  readonly idleTimeoutMs?: number;
  readonly defaultMaxTokens?: number;
  readonly fetch?: typeof fetch;
}

/**
 * `max_tokens` counts the thinking too and must be larger than its budget: a request whose room is
 * not is given the budget on top.
 */
function maxTokensOf(request: ModelRequest, fallback: number): number {
  const room = request.maxTokens ?? fallback;
  const budget = request.thinking?.budgetTokens;
  return budget !== undefined && room <= budget ? budget + room : room;
}

/** The output limit a refusal names: "max_tokens: 68096 > 64000, which is the maximum allowed number of output tokens for …". */
export function outputLimitIn(message: string): number | null {
  const found = /max_tokens: \d+ > (\d+), which is the maximum allowed number of output tokens/.exec(message);
  const limit = found ? Number(found[1]) : NaN;
  return Number.isInteger(limit) && limit >= 1 ? limit : null;
}

/** The request within a model's output limit: the thinking budget gives way first, down to the API's least, then goes. */
function withinOutputLimit(request: ModelRequest, limit: number): ModelRequest {
  const total = Math.min(request.maxTokens ?? limit, limit);
  const { thinking, ...rest } = request;
  if (!thinking) return { ...rest, maxTokens: total };
  const budget = Math.min(thinking.budgetTokens, total - thinkingBudgetLimits.min);
  return budget >= thinkingBudgetLimits.min
    ? { ...rest, maxTokens: total, thinking: { budgetTokens: budget } }
    : { ...rest, maxTokens: total };
}

function stopReason(reason: string | null | undefined): StopReason {
  if (reason === 'end_turn' || reason === 'stop_sequence') return 'end_turn';
  if (reason === 'tool_use') return 'tool_use';
  if (reason === 'max_tokens') return 'max_tokens';
  return 'other';
}

function thinkingBlock(gathered: { thinking: string; signature: string } | { data: string }): ThinkingBlock {
  return 'data' in gathered
    ? { type: 'redacted_thinking', data: gathered.data }
    : { type: 'thinking', thinking: gathered.thinking, signature: gathered.signature };
}

function missingKey(endpoint: string): ErrorInfo {
  return { code: 'model_auth_failed', message: `No API key for ${endpoint}: add one in Settings, or set ANTHROPIC_API_KEY.` };
}

/** The Anthropic Messages API through the official SDK. */
export class AnthropicProvider implements ModelProvider {
  readonly kind = 'anthropic' as const;
  private readonly client: Anthropic;
  private readonly idleTimeoutMs: number;
  /** Output limits models were refused at, by model. */
  private readonly outputLimits = new Map<string, number>();

  constructor(private readonly options: AnthropicOptions) {
    this.idleTimeoutMs = options.idleTimeoutMs ?? 5 * 60_000;
    this.client = new Anthropic({
      baseURL: options.baseUrl,
      apiKey: options.apiKey,
      maxRetries: 0,
      timeout: this.idleTimeoutMs,
      ...(options.fetch ? { fetch: options.fetch } : {}),
    });
  }

  /**
   * Streams one response. A model whose output limit the request passed (a large thinking budget on top of the answer's
   * room) is refused with its limit in the message: the request is made again within it, once, and the limit is kept.
   */
  async *stream(request: ModelRequest, signal: AbortSignal): AsyncIterable<ModelStreamEvent> {
    const known = this.outputLimits.get(request.model);
    let started = false;
    for await (const event of this.streamOnce(known === undefined ? request : withinOutputLimit(request, known), signal)) {
      const limit = !started && event.type === 'error' && known === undefined ? outputLimitIn(event.error.message) : null;
      if (limit !== null && limit < maxTokensOf(request, this.options.defaultMaxTokens ?? 8192)) {
        this.outputLimits.set(request.model, limit);
        yield* this.streamOnce(withinOutputLimit(request, limit), signal);
        return;
      }
      started = true;
      yield event;
    }
  }

  private async *streamOnce(request: ModelRequest, signal: AbortSignal): AsyncIterable<ModelStreamEvent> {
    if (!this.options.apiKey) {
      yield { type: 'error', error: missingKey(this.options.baseUrl) };
      return;
    }
    const watchdog = new IdleWatchdog(signal, this.idleTimeoutMs);
    const tools = new Map<number, { id: string; name: string; arguments: string }>();
    // Thinking blocks by index, gathered until they stop: the signature comes last, just before the stop.
    const thinking = new Map<number, { thinking: string; signature: string } | { data: string }>();
    const usage = new AnthropicUsage();
    let reason: string | null | undefined;
    let stopped = false;
    const ready: { index: number; id: string; name: string; arguments: string }[] = [];
    // The prompt is cached up to breakpoints on the tools, the system prompt and the conversation (anthropic-breakpoints.ts).
    const system = systemWithBreakpoint(request.system);
    try {
      const stream = await this.client.messages.create(
        {
          model: request.model,
          max_tokens: maxTokensOf(request, this.options.defaultMaxTokens ?? 8192),
          messages: conversationWithBreakpoints(toAnthropicMessages(request)),
          stream: true,
          ...(request.thinking ? { thinking: { type: 'enabled' as const, budget_tokens: request.thinking.budgetTokens } } : {}),
          // Extended thinking does not take a changed temperature: the API refuses the request.
          ...(request.temperature !== undefined && !request.thinking ? { temperature: request.temperature } : {}),
          ...(system === undefined ? {} : { system }),
          ...(request.tools && request.tools.length > 0
            ? {
                tools: toolsWithBreakpoint(
                  request.tools.map((tool) => ({
                    name: tool.name,
                    description: tool.description,
                    input_schema: { type: 'object' as const, ...tool.inputSchema },
                  })),
                ),
              }
            : {}),
        },
        { signal: watchdog.signal },
      );
      for await (const event of stream) {
        watchdog.touch();
        switch (event.type) {
          case 'message_start':
            usage.report(event.message.usage);
            break;
          case 'content_block_start':
            if (event.content_block.type === 'tool_use') {
              tools.set(event.index, { id: event.content_block.id, name: event.content_block.name, arguments: '' });
              yield { type: 'tool_call_started', index: event.index, id: event.content_block.id, name: event.content_block.name };
            } else if (event.content_block.type === 'text' && event.content_block.text.length > 0) {
              yield { type: 'text_delta', text: event.content_block.text };
            } else if (event.content_block.type === 'thinking') {
              const { thinking: text, signature } = event.content_block;
              thinking.set(event.index, { thinking: text, signature });
              if (text.length > 0) yield { type: 'reasoning_delta', text };
            } else if (event.content_block.type === 'redacted_thinking') {
              thinking.set(event.index, { data: event.content_block.data });
            }
            break;
          case 'content_block_delta': {
            const block = thinking.get(event.index);
            if (event.delta.type === 'text_delta') yield { type: 'text_delta', text: event.delta.text };
            else if (event.delta.type === 'thinking_delta') {
              if (block && 'thinking' in block) block.thinking += event.delta.thinking;
              yield { type: 'reasoning_delta', text: event.delta.thinking };
            } else if (event.delta.type === 'signature_delta') {
              if (block && 'signature' in block) block.signature += event.delta.signature;
            } else if (event.delta.type === 'input_json_delta') {
              const tool = tools.get(event.index);
              if (tool) {
                tool.arguments += event.delta.partial_json;
                yield { type: 'tool_call_arguments_delta', index: event.index, id: tool.id, delta: event.delta.partial_json };
              }
            }
            break;
          }
          case 'content_block_stop': {
            // A call is ready only once the whole message has arrived: one cut off after its block is never run.
            const tool = tools.get(event.index);
            if (tool) ready.push({ index: event.index, id: tool.id, name: tool.name, arguments: tool.arguments || '{}' });
            const block = thinking.get(event.index);
            if (block) yield { type: 'reasoning_block', block: thinkingBlock(block) };
            break;
          }
          case 'message_delta':
            usage.report(event.usage);
            reason = event.delta.stop_reason;
            break;
          case 'message_stop':
            stopped = true;
            break;
        }
      }
      // The SDK ends the iteration quietly when the request is aborted, so an abort is checked here.
      if (watchdog.signal.aborted) throw watchdog.signal.reason;
      if (!stopped) throw new Error('terminated: the stream ended before message_stop');
      for (const call of ready) yield { type: 'tool_call_ready', ...call };
      yield usage.event();
      yield { type: 'done', stopReason: stopReason(reason) };
    } catch (error) {
      if (usage.spent) yield usage.event();
      const classified = classifyProviderError(error, this.options.baseUrl, watchdog.signal);
      // What the classifier found is the event: the error, and when said, the wait and the window's figures.
      yield { type: 'error', ...classified };
    } finally {
      watchdog.dispose();
    }
  }

  async listModels(signal: AbortSignal): Promise<ModelInfo[]> {
    this.requireKey();
    try {
      const models: ModelInfo[] = [];
      for await (const model of this.client.models.list({ limit: 100 }, { signal })) {
        const extra = model as unknown as { max_input_tokens?: unknown };
        models.push(
          typeof extra.max_input_tokens === 'number' ? { id: model.id, contextLength: extra.max_input_tokens } : { id: model.id },
        );
        if (models.length >= 500) break;
      }
      return models;
    } catch (error) {
      throw toModelError(error, this.options.baseUrl, signal);
    }
  }

  /**
   * The model's window from `GET /v1/models/{id}`: `max_input_tokens`, which is both what the API
   * accepts and what the model was made for. Null when the API does not give it, or does not know
   * the model (404).
   */
  async window(model: string, signal: AbortSignal): Promise<ModelWindow | null> {
    this.requireKey();
    try {
      const info = await this.client.models.retrieve(model, {}, { signal });
      const tokens = (info as { max_input_tokens?: unknown }).max_input_tokens;
      if (typeof tokens !== 'number' || !Number.isInteger(tokens) || tokens <= 0 || tokens > 10_000_000) return null;
      return { loaded: tokens, trained: tokens, source: 'reported by Anthropic', route: '/v1/models/{id} max_input_tokens' };
    } catch (error) {
      if ((error as { status?: unknown }).status === 404) return null;
      throw toModelError(error, this.options.baseUrl, signal);
    }
  }

  /** Every current Claude model takes images (https://docs.anthropic.com/en/docs/build-with-claude/vision). */
  takesImages(): Promise<boolean> {
    return Promise.resolve(true);
  }

  private requireKey(): void {
    if (this.options.apiKey) return;
    const error = missingKey(this.options.baseUrl);
    throw new ModelError(error.code, error.message);
  }
}
