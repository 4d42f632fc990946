/*
 * Ollama through its own API as a model provider: the one way to set a model's window per request (`num_ctx`).
 */

import type { z } from 'zod';
import type { ModelInfo } from '../../shared/domain';
import { ModelError, type ErrorInfo } from '../../shared/errors';
import type { ModelProvider, ModelRequest, ModelStreamEvent, ModelWindow, StopReason } from '../agent/ports/model-provider';
import { OllamaServerError, classifyOllamaError } from './ollama-errors';
import {
  chatBody,
  chatFrameSchema,
  errorBodySchema,
  errorText,
  modelfileNumCtx,
  ndjsonLines,
  psSchema,
  sameModel,
  showSchema,
  tagsSchema,
  trainedWindow,
  windowFigure,
  type ChatFrame,
  type OllamaToolCall,
} from './ollama-wire';
import { IdleWatchdog, toModelError } from './provider-errors';
import { ThinkTagSplitters, ollamaOpening } from './think-openings';
import { ThinkTagSplitter, contentEvents } from './think-tags';

export interface OllamaOptions {
  /** The server root, e.g. http://127.0.0.1:11434; a trailing `/v1` (the OpenAI-compatible address) is dropped. */
  readonly baseUrl: string;
  /** Sent as a bearer token when set: Ollama itself needs none, a proxy in front of it or ollama.com may. */
  readonly apiKey?: string | null;
  /** Longest wait for the next piece of the answer (loading the model and reading a big prompt included). */
  readonly idleTimeoutMs?: number;
  /** How long Ollama keeps the model loaded after a request; its own default is 5 minutes. */
  readonly keepAlive?: string;
  readonly fetch?: typeof fetch;
}

/** A tool call gathered from the stream, numbered in the order it arrived. */
interface GatheredCall {
  readonly index: number;
  readonly id: string;
  readonly name: string;
  readonly arguments: string;
}

/** The server root from what a person typed: no trailing slash, no `/v1`. */
export function ollamaRoot(baseUrl: string): string {
  return baseUrl.replace(/\/+$/, '').replace(/\/v1$/, '');
}

/** `value` checked against `schema`; a mismatch is reported as a malformed response, naming the first wrong field. */
function shaped<T>(schema: z.ZodType<T>, value: unknown, what: string): T {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  throw new SyntaxError(
    `${what} is not in Ollama's shape: ${issue ? `${issue.path.join('.') || 'the whole'}: ${issue.message}` : 'unknown'}`,
  );
}

/** Ollama sends arguments as an object; the app carries them as JSON text. */
function argumentsText(value: unknown): string {
  if (value === undefined || value === null) return '{}';
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** Ollama says `stop` whether or not the model called tools, so calls decide `tool_use`; `length` means the answer hit num_predict. */
function stopReason(doneReason: string | null | undefined, calledTools: boolean): StopReason {
  if (doneReason === 'length') return 'max_tokens';
  if (calledTools) return 'tool_use';
  return doneReason === 'stop' ? 'end_turn' : 'other';
}

/**
 * Ollama through its own API (/api/chat), not its OpenAI-compatible one: only here can a request set the window
 * (`num_ctx`), and /api/show and /api/ps say what window a model has. Ollama has no tokenize endpoint, so there is no
 * `countTokens`; its counts come back as `prompt_eval_count`.
 */
export class OllamaProvider implements ModelProvider {
  readonly kind = 'ollama' as const;
  private readonly root: string;
  private readonly idleTimeoutMs: number;
  private readonly keepAlive: string;
  private readonly fetch: typeof fetch;
  /** Inline reasoning told apart per model, knowing which templates open it (`/api/show`). */
  private readonly thinkTags: ThinkTagSplitters;

  constructor(private readonly options: OllamaOptions) {
    this.root = ollamaRoot(options.baseUrl);
    this.idleTimeoutMs = options.idleTimeoutMs ?? 10 * 60_000;
    this.keepAlive = options.keepAlive ?? '30m';
    // Called through a closure: a bare `fetch` taken off the global and called as a method can lose its `this`.
    this.fetch = options.fetch ?? ((input, init) => fetch(input, init));
    const headers: Record<string, string> = options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {};
    this.thinkTags = new ThinkTagSplitters(ollamaOpening({ root: this.root, fetch: this.fetch, headers, timeoutMs: 3_000 }));
  }

  async *stream(request: ModelRequest, signal: AbortSignal): AsyncIterable<ModelStreamEvent> {
    const watchdog = new IdleWatchdog(signal, this.idleTimeoutMs);
    const calls: GatheredCall[] = [];
    const content = await this.thinkTags.splitter(request.model, watchdog.signal);
    try {
      const response = await this.send('POST', '/api/chat', chatBody(request, this.keepAlive), watchdog.signal);
      if (!response.body) throw new OllamaServerError('The answer has no body.', response.status);
      let final: ChatFrame | null = null;
      for await (const line of ndjsonLines(response.body, () => watchdog.touch())) {
        const frame = shaped(chatFrameSchema, JSON.parse(line), 'A frame of the answer');
        if (frame.error) throw new OllamaServerError(errorText(frame.error));
        yield* this.eventsOf(frame, calls, content);
        if (frame.done) {
          final = frame;
          break;
        }
      }
      if (watchdog.signal.aborted) throw watchdog.signal.reason;
      if (!final) {
        yield { type: 'error', error: this.unfinished() };
        return;
      }
      yield* contentEvents(content.end());
      // `prompt_eval_count` is the whole prompt, its cached beginning included: the count of the prompt's inputs before
      // the cache is looked up in the runners before 0.30 (runner/ollamarunner/runner.go, `numPromptInputs`), and
      // llama-server's `cache_n + prompt_n` from 0.30.1 (llm/llama_server.go, ollama/ollama#16428; 0.30.0 alone gave
      // `prompt_n`, #16414). Nothing in the answer says how much of it was cached, so `cacheReadTokens` is left out.
      yield { type: 'usage', inputTokens: final.prompt_eval_count ?? 0, outputTokens: final.eval_count ?? 0 };
      for (const call of calls) yield { type: 'tool_call_ready', ...call };
      yield { type: 'done', stopReason: stopReason(final.done_reason, calls.length > 0) };
    } catch (error) {
      const classified = classifyOllamaError(error, this.root, watchdog.signal);
      // What the classifier found is the event: the error, and when said, the wait and the window's figures.
      yield { type: 'error', ...classified };
    } finally {
      watchdog.dispose();
    }
  }

  async listModels(signal: AbortSignal): Promise<ModelInfo[]> {
    const tags = await this.read('GET', '/api/tags', undefined, tagsSchema, signal);
    return tags.models.map((model) => {
      const contextLength = windowFigure(model.details?.context_length);
      return contextLength === undefined ? { id: model.name } : { id: model.name, contextLength };
    });
  }

  /**
   * The trained window from /api/show, and the window the model runs with now from /api/ps (a Modelfile's num_ctx
   * when it is not loaded). Figures that cannot be windows are left out.
   */
  async window(model: string, signal: AbortSignal): Promise<ModelWindow | null> {
    const show = await this.read('POST', '/api/show', { model }, showSchema, signal);
    // Ollama before 0.1.38 has no /api/ps; its 404 only means nothing is known about running models.
    const running = await this.read('GET', '/api/ps', undefined, psSchema, signal).catch((error: unknown) => {
      if (error instanceof ModelError && error.code === 'model_request_rejected') return { models: [] };
      throw error;
    });
    const entry = running.models?.find((candidate) => [candidate.name, candidate.model].some((name) => name && sameModel(name, model)));
    const loaded = windowFigure(entry?.context_length) ?? modelfileNumCtx(show.parameters) ?? null;
    const trained = trainedWindow(show) ?? null;
    if (loaded === null && trained === null) return null;
    return { loaded, trained, source: 'reported by Ollama', route: `/api/show and /api/ps at ${this.root}` };
  }

  /** Whether the model takes images: `vision` among its capabilities in /api/show (Ollama 0.6.4 and later). */
  async takesImages(model: string, signal: AbortSignal): Promise<boolean> {
    const show = await this.read('POST', '/api/show', { model }, showSchema, signal);
    return show.capabilities?.includes('vision') ?? false;
  }

  /** The events one frame carries. Each tool call arrives whole: it starts, gets its arguments in one piece, and is kept for `ready`. */
  private *eventsOf(frame: ChatFrame, calls: GatheredCall[], content: ThinkTagSplitter): Iterable<ModelStreamEvent> {
    const message = frame.message;
    if (message?.thinking) yield { type: 'reasoning_delta', text: message.thinking };
    if (message?.content) yield* contentEvents(content.push(message.content));
    for (const call of message?.tool_calls ?? []) yield* this.started(call, calls);
  }

  private *started(call: OllamaToolCall, calls: GatheredCall[]): Iterable<ModelStreamEvent> {
    const index = calls.length;
    const gathered: GatheredCall = {
      index,
      id: call.id || `call_${index}`,
      name: call.function.name,
      arguments: argumentsText(call.function.arguments),
    };
    calls.push(gathered);
    yield { type: 'tool_call_started', index, id: gathered.id, name: gathered.name };
    yield { type: 'tool_call_arguments_delta', index, id: gathered.id, delta: gathered.arguments };
  }

  private unfinished(): ErrorInfo {
    return {
      code: 'model_stream_interrupted',
      message: `The answer from ${this.root} ended before its final frame.`,
      retryable: true,
    };
  }

  /** One request; a failed status becomes an `OllamaServerError` carrying Ollama's own message. */
  private async send(method: 'GET' | 'POST', path: string, body: unknown, signal: AbortSignal): Promise<Response> {
    const headers: Record<string, string> = { accept: 'application/json, application/x-ndjson' };
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (this.options.apiKey) headers['authorization'] = `Bearer ${this.options.apiKey}`;
    const response = await this.fetch(`${this.root}${path}`, {
      method,
      headers,
      signal,
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    if (response.ok) return response;
    const text = await response.text().catch(() => '');
    // A proxy's error page can be long; the start says enough.
    let message = text.trim().slice(0, 500) || response.statusText || 'no message';
    try {
      const parsed = errorBodySchema.safeParse(JSON.parse(text));
      if (parsed.success) message = errorText(parsed.data.error);
    } catch {
      // Not JSON (a proxy's error page, say): the text itself is the message.
    }
    throw new OllamaServerError(message, response.status, response.headers);
  }

  /** A JSON request whose answer is checked against `schema`; every failure is a `ModelError`. */
  private async read<T>(method: 'GET' | 'POST', path: string, body: unknown, schema: z.ZodType<T>, signal: AbortSignal): Promise<T> {
    try {
      const response = await this.send(method, path, body, signal);
      return shaped(schema, await response.json(), `The answer to ${method} ${path}`);
    } catch (error) {
      throw toModelError(error, this.root, signal);
    }
  }
}
