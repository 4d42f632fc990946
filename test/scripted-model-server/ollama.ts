import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { text } from 'node:stream/consumers';
import { fitPrompt, loadedWindow, type OllamaContext } from './ollama-context';
import { asTextOnly, chunksOf, defaultUsage, type ScriptedTurn } from './script';
import type { RecordedRequest } from './recorded-request';
import { countPromptTokens, type CountedMessage } from './tokens';

/** How the scripted server behaves as Ollama. */
export interface OllamaOptions {
  /**
   * The window a model gets when neither the request nor its Modelfile names one. Current Ollama takes
   * OLLAMA_CONTEXT_LENGTH, else picks by total VRAM: 4096 under 24 GiB, 32768 under 48 GiB, 262144 above. Default 4096.
   */
  readonly defaultContextLength?: number;
  /** Per model name, a Modelfile's `PARAMETER num_ctx`: shown by /api/show and used when a request gives no num_ctx. */
  readonly modelfileNumCtx?: Readonly<Record<string, number>>;
  /** Whether a prompt that does not fit even after dropping old messages is cut (true, the default) or refused with a 400. */
  readonly contextShift?: boolean;
}

/** What the Ollama routes need from the server they are part of. */
export interface OllamaHost {
  readonly models: readonly {
    readonly id: string;
    readonly contextLength?: number;
    readonly vision?: boolean;
    readonly chatTemplate?: string;
  }[];
  readonly options: OllamaOptions;
  /** Whether a model only speaks text: Ollama refuses tool definitions for it and does not list `tools` among its capabilities. */
  textOnly(model: string): boolean;
  record(request: RecordedRequest): void;
  nextTurn(request: RecordedRequest): ScriptedTurn | undefined;
}

interface LoadedModel {
  readonly window: number;
  readonly expiresAt: number;
}

const routes = new Set(['POST /api/chat', 'POST /api/show', 'GET /api/ps', 'GET /api/tags', 'GET /api/version']);

/** Whether a request is for Ollama's own API. */
export function isOllamaRoute(method: string | undefined, path: string): boolean {
  return routes.has(`${method ?? 'GET'} ${path}`);
}

const architecture = 'llama';
const digest = '0123456789abcdef'.repeat(4);
const json = (response: ServerResponse, status: number, body: unknown): void => {
  response.writeHead(status, { 'content-type': 'application/json; charset=utf-8' }).end(JSON.stringify(body));
};
const delay = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** `llama3.2` and `llama3.2:latest` name the same model, as in Ollama. */
export const sameModel = (a: string, b: string): boolean => (a.includes(':') ? a : `${a}:latest`) === (b.includes(':') ? b : `${b}:latest`);

/** How long a model stays loaded: keep_alive as seconds or a duration ("30m"); negative is forever. Ollama's default is 5 minutes. */
function keepAliveMs(value: unknown): number {
  if (typeof value === 'number') return value < 0 ? Number.POSITIVE_INFINITY : value * 1000;
  const match = typeof value === 'string' ? /^(-?\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(value.trim()) : null;
  if (!match) return 5 * 60_000;
  const amount = Number(match[1]);
  if (amount < 0) return Number.POSITIVE_INFINITY;
  return amount * { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[(match[2] ?? 's') as 'ms' | 's' | 'm' | 'h'];
}

function isCountedMessage(value: unknown): value is CountedMessage {
  return typeof value === 'object' && value !== null && typeof (value as { role?: unknown }).role === 'string';
}

/** A tool call as Ollama sends it: the arguments an object, the id absent when the script gives none. */
function toolCall(call: { id: string; name: string; arguments: string }, index: number): Record<string, unknown> {
  let args: unknown;
  try {
    args = JSON.parse(call.arguments);
  } catch {
    // Real Ollama always sends an object; a script with broken JSON gets the raw text, to test a client's fallback.
    args = call.arguments;
  }
  return { ...(call.id ? { id: call.id } : {}), function: { index, name: call.name, arguments: args } };
}

/**
 * The NDJSON lines of one streamed chat answer, shaped as current Ollama sends them (server/routes.go, ChatHandler):
 * one frame per piece of text or thinking, a frame of its own per finished tool call (or all of them in the final
 * frame), then a `done` frame with the reason and the counts.
 */
export function ollamaFrames(turn: ScriptedTurn, model: string, context: OllamaContext): string[] {
  const line = (fields: Record<string, unknown>, message: Record<string, unknown> = {}): string =>
    `${JSON.stringify({ model, created_at: new Date().toISOString(), message: { role: 'assistant', content: '', ...message }, ...fields })}\n`;
  const frames: string[] = [];
  const open = new Map<number, { id: string; name: string; arguments: string }>();
  const finalCalls: Record<string, unknown>[] = [];
  for (const item of chunksOf(turn)) {
    if (item.kind === 'text') frames.push(line({ done: false }, { content: item.text }));
    else if (item.kind === 'reasoning') frames.push(line({ done: false }, { thinking: item.text }));
    else if (item.kind === 'tool_start') open.set(item.index, { id: item.id, name: item.name, arguments: '' });
    else if (item.kind === 'tool_arguments') {
      const call = open.get(item.index);
      if (call) call.arguments += item.piece;
    } else {
      const call = open.get(item.index);
      if (!call) continue;
      if (turn.toolCallFrame === 'final') finalCalls.push(toolCall(call, item.index));
      else frames.push(line({ done: false }, { tool_calls: [toolCall(call, item.index)] }));
    }
  }
  // A script's own figures win; otherwise the count is what the model read after truncation.
  const usage = defaultUsage(turn, context.keptTokens);
  frames.push(
    line(
      {
        done: true,
        done_reason: turn.stoppedAtLimit ? 'length' : 'stop',
        total_duration: 1_250_000_000,
        load_duration: 50_000_000,
        prompt_eval_count: usage.inputTokens,
        prompt_eval_duration: 400_000_000,
        eval_count: usage.outputTokens,
        eval_duration: 800_000_000,
      },
      finalCalls.length > 0 ? { tool_calls: finalCalls } : {},
    ),
  );
  return frames;
}

/** Ollama's own API on the scripted server: chat, show, ps, tags and version, with its window and truncation rules. */
export class OllamaEndpoint {
  private readonly loaded = new Map<string, LoadedModel>();

  constructor(private readonly host: OllamaHost) {}

  /** Unloads every model, for the next test. */
  reset(): void {
    this.loaded.clear();
  }

  async handle(request: IncomingMessage, response: ServerResponse, path: string): Promise<void> {
    if (path === '/api/version') json(response, 200, { version: '0.32.15' });
    else if (path === '/api/tags') json(response, 200, { models: this.host.models.map((model) => this.tag(model)) });
    else if (path === '/api/ps') json(response, 200, { models: this.running() });
    else {
      let body: Record<string, unknown>;
      try {
        body = JSON.parse(await text(request)) as Record<string, unknown>;
      } catch {
        json(response, 400, { error: 'invalid character in request body' });
        return;
      }
      if (path === '/api/show') this.show(body, response);
      else await this.chat(request.headers, body, response);
    }
  }

  private find(name: unknown): OllamaHost['models'][number] | undefined {
    return typeof name === 'string' ? this.host.models.find((model) => sameModel(model.id, name)) : undefined;
  }

  /** A model's `details`; only /api/tags puts the trained window in them, /api/show and /api/ps do not. */
  private details(model: { contextLength?: number }, withWindow = false): Record<string, unknown> {
    return {
      parent_model: '',
      format: 'gguf',
      family: architecture,
      families: [architecture],
      parameter_size: '3.2B',
      quantization_level: 'Q4_K_M',
      ...(withWindow && model.contextLength ? { context_length: model.contextLength } : {}),
    };
  }

  /** One /api/tags entry; current Ollama (0.30 and later) puts the trained window in `details.context_length`. */
  private tag(model: { id: string; contextLength?: number }): Record<string, unknown> {
    return {
      name: model.id,
      model: model.id,
      modified_at: '2026-01-01T00:00:00Z',
      size: 2_019_393_189,
      digest,
      details: this.details(model, true),
      capabilities: this.capabilities(model.id),
    };
  }

  private capabilities(model: string): string[] {
    const vision = this.host.models.some((candidate) => candidate.id === model && candidate.vision === true) ? ['vision'] : [];
    return [...(this.host.textOnly(model) ? ['completion'] : ['completion', 'tools']), ...vision];
  }

  private running(): Record<string, unknown>[] {
    const now = Date.now();
    const models: Record<string, unknown>[] = [];
    for (const [name, loaded] of this.loaded) {
      if (loaded.expiresAt <= now) continue;
      const model = this.find(name) ?? { id: name };
      models.push({
        name,
        model: name,
        size: 3_200_000_000,
        digest,
        details: this.details(model),
        expires_at: new Date(Number.isFinite(loaded.expiresAt) ? loaded.expiresAt : Date.UTC(2318, 0, 1)).toISOString(),
        size_vram: 3_200_000_000,
        context_length: loaded.window,
      });
    }
    return models;
  }

  private show(body: Record<string, unknown>, response: ServerResponse): void {
    const name = body['model'] ?? body['name'];
    const model = this.find(name);
    if (!model) {
      json(response, 404, { error: `model '${String(name)}' not found` });
      return;
    }
    const numCtx = this.host.options.modelfileNumCtx?.[model.id];
    // Parameters are one per line, the name padded to 30 columns, as `ollama show --parameters` prints them.
    const parameters = [...(numCtx === undefined ? [] : [['num_ctx', String(numCtx)]]), ['stop', '"<|eot_id|>"']]
      .map(([key, value]) => `${key!.padEnd(30)} ${value!}`)
      .join('\n');
    json(response, 200, {
      license: '',
      modelfile: `FROM ${model.id}\n${numCtx === undefined ? '' : `PARAMETER num_ctx ${numCtx}\n`}`,
      parameters,
      template: model.chatTemplate ?? '{{ .Prompt }}',
      details: this.details(model),
      model_info: {
        'general.architecture': architecture,
        'general.parameter_count': 3_212_749_888,
        ...(model.contextLength ? { [`${architecture}.context_length`]: model.contextLength } : {}),
        [`${architecture}.embedding_length`]: 3072,
      },
      capabilities: this.capabilities(model.id),
      modified_at: '2026-01-01T00:00:00Z',
    });
  }

  private async chat(headers: IncomingHttpHeaders, body: Record<string, unknown>, response: ServerResponse): Promise<void> {
    const receivedAt = performance.now();
    const model = this.find(body['model']);
    const messages = Array.isArray(body['messages']) ? body['messages'].filter(isCountedMessage) : [];
    if (!model) {
      const promptTokens = countPromptTokens(messages, body['tools']);
      this.host.record({ protocol: 'ollama', path: '/api/chat', headers, body, receivedAt, promptTokens });
      json(response, 404, { error: `model '${String(body['model'])}' not found` });
      return;
    }
    const window = loadedWindow(
      body['options'],
      this.host.options.modelfileNumCtx?.[model.id],
      this.host.options.defaultContextLength ?? 4096,
      model.contextLength,
    );
    const contextShift = body['shift'] !== false && this.host.options.contextShift !== false;
    const context = fitPrompt(messages, body['tools'], window, contextShift, body['truncate'] !== false);
    const recorded: RecordedRequest = {
      protocol: 'ollama',
      path: '/api/chat',
      headers,
      body,
      receivedAt,
      promptTokens: context.promptTokens,
      context,
    };
    this.host.record(recorded);
    this.loaded.set(model.id, { window, expiresAt: Date.now() + keepAliveMs(body['keep_alive']) });
    if (context.refused) {
      json(response, 400, {
        error: `the prompt is longer than the context length available to the model (${context.keptTokens} tokens, ${window} available)`,
      });
      return;
    }
    if (this.host.textOnly(model.id) && Array.isArray(body['tools']) && body['tools'].length > 0) {
      json(response, 400, { error: `registry.ollama.ai/library/${model.id} does not support tools` });
      return;
    }
    const turn = this.host.nextTurn(recorded);
    if (!turn) {
      json(response, 500, { error: 'No scripted turn is queued.' });
      return;
    }
    await this.stream(this.host.textOnly(model.id) ? asTextOnly(turn) : turn, String(body['model']), context, response);
  }

  private async stream(turn: ScriptedTurn, model: string, context: OllamaContext, response: ServerResponse): Promise<void> {
    const fault = turn.fault;
    if (fault?.kind === 'status') {
      const headers: Record<string, string> = { 'content-type': 'application/json; charset=utf-8' };
      if (fault.retryAfterSeconds !== undefined) headers['retry-after'] = String(fault.retryAfterSeconds);
      const body = fault.body ?? { error: fault.message ?? `Scripted failure ${fault.status}` };
      response.writeHead(fault.status, headers).end(JSON.stringify(body));
      return;
    }
    response.writeHead(200, { 'content-type': 'application/x-ndjson' });
    response.flushHeaders();
    if (fault?.kind === 'stall') return;
    const frames = ollamaFrames(turn, model, context);
    for (let index = 0; index < frames.length; index += 1) {
      if (response.destroyed) return;
      if (fault?.kind === 'drop' && index === fault.afterChunks) {
        // Let what was written reach the client first, then cut the connection.
        await delay(50);
        response.socket?.destroy();
        return;
      }
      if (fault?.kind === 'stream_error' && index === fault.afterChunks) {
        response.end(`${JSON.stringify(fault.body)}\n`);
        return;
      }
      if (fault?.kind === 'malformed' && index === fault.afterChunks) response.write('{"model":"scripted","message":{not json\n');
      if (turn.chunkDelayMs !== undefined && turn.chunkDelayMs > 0) await delay(turn.chunkDelayMs);
      if (!response.write(frames[index])) await new Promise<void>((resolve) => response.once('drain', resolve));
    }
    response.end();
  }
}
