import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import {
  anthropicModels,
  openAIModels,
  serveLocalRoute,
  speaksOnlyText,
  toolRefusal,
  type LocalServerConfig,
  type Personality,
  type ScriptedModel,
} from './local-servers';
import { LlamaSlots, withTimings, type LlamaSlotOptions } from './llama-slots';
import { OllamaEndpoint, isOllamaRoute, type OllamaOptions } from './ollama';
import { promptTokensOf, refusalFor, type Refusal } from './overflow';
import { anthropicWriter, openAIWriter, type ProtocolWriter } from './protocols';
import { AnthropicPromptCache, breakpointRefusal } from './anthropic-cache';
import { probeTurn, type ProbeBehaviour } from './doctor-probes';
import { asTextOnly, defaultUsage, type ScriptedTurn } from './script';
import { thinkingRefusal } from './thinking';
import type { Protocol, RecordedRequest } from './recorded-request';

export interface ScriptedModelServerOptions {
  /** The models served; `contextLength` is the size each was trained for. */
  readonly models?: readonly ScriptedModel[];
  /**
   * The window the server has loaded. A chat request whose prompt does not fit is refused the way
   * `personality`'s server (or, on its route, Anthropic) refuses it. Without it nothing is refused.
   */
  readonly contextWindow?: number;
  /** Which local server the OpenAI routes act as: its routes, fields and errors. vLLM when absent. */
  readonly personality?: Personality;
  /** Answers a request when no turn is queued; without it such a request gets a 500. */
  readonly fallback?: (request: RecordedRequest) => ScriptedTurn;
  /**
   * False: prompts are not counted (their tokens read 0, no window is enforced). For benchmarks whose
   * server shares the machine's cores with the app: counting a long conversation on every request
   * would slow the app down, not the server.
   */
  readonly countPrompts?: boolean;
  /**
   * How Ollama's own routes (/api/chat, /api/show, /api/ps, /api/tags) behave: the default window, Modelfile windows,
   * context shift. They take the window per request, so `contextWindow` and `personality` do not apply to them.
   */
  readonly ollama?: OllamaOptions;
  /** Every model only speaks text (see `ScriptedModel.tools`): the server for a text-tool run of any story. */
  readonly textOnly?: boolean;
  /** How the model answers the model doctor's probes (which never take queued turns, and are kept in `probes`). */
  readonly probes?: ProbeBehaviour;
  /** Waits this long before answering any request: a server busy loading a model. Changed later with `answerDelayMs`. */
  readonly answerDelayMs?: number;
  /**
   * The llama.cpp personality's slots and prompt cache (llama-slots.ts): `total_slots`, what `id_slot` does, slot choice.
   * Kept only while prompts are counted (`countPrompts`); each chat request's slot and figures are in `llamaSlot`.
   */
  readonly llamaSlots?: LlamaSlotOptions;
}

/**
 * A real HTTP server on 127.0.0.1 that speaks the OpenAI chat-completions and the Anthropic
 * Messages streaming protocols and replays scripted turns, faults included. Each request takes
 * the next queued turn, whichever protocol asks.
 */
export class ScriptedModelServer {
  readonly requests: RecordedRequest[] = [];
  /** The model doctor's probe requests, kept apart from `requests`. */
  readonly probes: RecordedRequest[] = [];
  private readonly queue: ScriptedTurn[] = [];
  private readonly sockets = new Set<Socket>();
  private readonly local: LocalServerConfig;
  private readonly ollama: OllamaEndpoint;
  private readonly slots: LlamaSlots;
  private readonly anthropicCache = new AnthropicPromptCache();
  /** How long every answer waits (see the option of that name); a test sets 0 when the server is done "loading". */
  answerDelayMs: number;

  private constructor(
    private readonly server: Server,
    readonly url: string,
    private readonly options: ScriptedModelServerOptions,
  ) {
    this.answerDelayMs = options.answerDelayMs ?? 0;
    this.slots = new LlamaSlots(options.llamaSlots);
    this.local = {
      personality: options.personality ?? 'vllm',
      models: options.models ?? [{ id: 'scripted-model', contextLength: 32768 }],
      contextWindow: options.contextWindow,
      totalSlots: this.slots.total,
    };
    this.ollama = new OllamaEndpoint({
      models: this.local.models,
      options: options.ollama ?? {},
      record: (request) => (probeTurn(request.body, this.options.probes) ? this.probes : this.requests).push(request),
      textOnly: (model) => this.textOnly(model),
      nextTurn: (request) => probeTurn(request.body, this.options.probes) ?? this.queue.shift() ?? this.options.fallback?.(request),
    });
    server.on('connection', (socket) => {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
    });
  }

  static async start(options: ScriptedModelServerOptions = {}): Promise<ScriptedModelServer> {
    let instance: ScriptedModelServer | null = null;
    const server = createServer((request, response) => {
      void instance?.handle(request, response).catch(() => response.destroy());
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    instance = new ScriptedModelServer(server, `http://127.0.0.1:${port}`, options);
    return instance;
  }

  /** Base URL for OpenAI-compatible clients. */
  get openaiBaseUrl(): string {
    return `${this.url}/v1`;
  }

  /** Base URL for the Anthropic SDK (it adds /v1 itself). */
  get anthropicBaseUrl(): string {
    return this.url;
  }

  /** Base URL for Ollama's own API: the server root. */
  get ollamaBaseUrl(): string {
    return this.url;
  }

  enqueue(...turns: ScriptedTurn[]): void {
    this.queue.push(...turns);
  }

  /** Forgets queued turns and recorded requests, for the next test. */
  reset(): void {
    this.queue.length = 0;
    this.requests.length = 0;
    this.probes.length = 0;
    this.ollama.reset();
    this.slots.reset();
    this.anthropicCache.reset();
  }

  get pending(): number {
    return this.queue.length;
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const path = (request.url ?? '/').split('?')[0] ?? '/';
    const protocol: Protocol = request.headers['anthropic-version'] !== undefined || path === '/v1/messages' ? 'anthropic' : 'openai';
    if (request.method === 'POST' && path.startsWith('/__script/')) {
      await this.control(path, request, response);
      return;
    }
    if (this.answerDelayMs > 0) await delay(this.answerDelayMs);
    if (isOllamaRoute(request.method, path)) {
      await this.ollama.handle(request, response, path);
      return;
    }
    if (request.method === 'GET' && path === '/v1/models') {
      this.sendModels(protocol, response);
      return;
    }
    if (await serveLocalRoute(this.local, request, response, path, protocol === 'anthropic')) return;
    const isChat = request.method === 'POST' && (path === '/v1/chat/completions' || path === '/v1/messages');
    if (!isChat) {
      response
        .writeHead(404, { 'content-type': 'application/json' })
        .end(JSON.stringify({ error: { message: `No route ${request.method} ${path}` } }));
      return;
    }
    let body: Record<string, unknown>;
    let receivedAt: number;
    try {
      const text = await readBody(request);
      receivedAt = performance.now();
      body = JSON.parse(text) as Record<string, unknown>;
    } catch {
      response.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: 'Body is not JSON' } }));
      return;
    }
    const promptTokens = this.options.countPrompts === false ? 0 : promptTokensOf(protocol === 'anthropic', body);
    const recorded: RecordedRequest = { protocol, path, headers: request.headers, body, receivedAt, promptTokens };
    const probe = probeTurn(body, this.options.probes);
    (probe ? this.probes : this.requests).push(recorded);
    const writer: ProtocolWriter = protocol === 'anthropic' ? anthropicWriter : openAIWriter;
    // A prompt that does not fit is refused before any turn is taken, as a real server generates nothing.
    const refusal = this.options.countPrompts === false ? null : refusalFor(this.local, protocol === 'anthropic', body, promptTokens);
    if (refusal) {
      refuse(refusal, writer, response);
      return;
    }
    const thinking = protocol === 'anthropic' ? (thinkingRefusal(body) ?? breakpointRefusal(body)) : null;
    if (thinking !== null) {
      response.writeHead(400, { 'content-type': 'application/json' }).end(writer.errorBody(400, thinking));
      return;
    }
    const textOnly = protocol === 'openai' && this.textOnly(body['model']);
    const toolsRefused = textOnly && Array.isArray(body['tools']) && body['tools'].length > 0 ? toolRefusal(this.local.personality) : null;
    if (toolsRefused) {
      response.writeHead(toolsRefused.status, { 'content-type': 'application/json' }).end(JSON.stringify(toolsRefused.body));
      return;
    }
    const slotted = protocol === 'openai' && this.local.personality === 'llama.cpp' && this.options.countPrompts !== false;
    const slotRefusal = slotted ? this.slots.refusal(body) : null;
    if (slotRefusal) {
      response.writeHead(slotRefusal.status, { 'content-type': 'application/json' }).end(JSON.stringify(slotRefusal.body));
      return;
    }
    const turn = probe ?? this.queue.shift() ?? this.options.fallback?.(recorded);
    if (!turn) {
      response.writeHead(500, { 'content-type': 'application/json' }).end(writer.errorBody(500, 'No scripted turn is queued.'));
      return;
    }
    if (slotted && turn.fault?.kind !== 'status') {
      const use = await this.slots.take(body, response);
      if (use === null) return;
      recorded.llamaSlot = use;
    }
    await this.stream(textOnly ? asTextOnly(turn) : turn, writer, recorded, response);
  }

  /** Whether a request's model only speaks text. */
  private textOnly(model: unknown): boolean {
    return this.options.textOnly === true || speaksOnlyText(this.local.models, model);
  }

  private async stream(turn: ScriptedTurn, writer: ProtocolWriter, request: RecordedRequest, response: ServerResponse): Promise<void> {
    const fault = turn.fault;
    if (fault?.kind === 'status') {
      const headers: Record<string, string> = { 'content-type': 'application/json' };
      if (fault.retryAfterSeconds !== undefined) headers['retry-after'] = String(fault.retryAfterSeconds);
      const body =
        fault.body === undefined
          ? writer.errorBody(fault.status, fault.message ?? `Scripted failure ${fault.status}`)
          : JSON.stringify(fault.body);
      response.writeHead(fault.status, headers).end(body);
      return;
    }
    response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
    response.flushHeaders();
    if (fault?.kind === 'stall') return;
    const model = typeof request.body['model'] === 'string' ? request.body['model'] : 'scripted';
    const streamOptions = request.body['stream_options'] as { include_usage?: unknown } | undefined;
    // Only a request the model reads is cached; one whose prompt is not counted is neither read nor written.
    const counted = request.protocol === 'anthropic' && this.options.countPrompts !== false;
    const cache = counted ? this.anthropicCache.serve(request.body, request.promptTokens) : undefined;
    const written = writer.frames(turn, model, streamOptions?.include_usage === true, request.promptTokens, cache);
    const slot = request.llamaSlot;
    const frames = slot ? withTimings(written, slot, defaultUsage(turn, request.promptTokens).outputTokens) : written;
    for (let index = 0; index < frames.length; index += 1) {
      if (response.destroyed) return;
      if (fault?.kind === 'stream_error' && index === fault.afterChunks) {
        response.end(writer.errorFrame(fault.body));
        return;
      }
      if (fault?.kind === 'drop' && index === fault.afterChunks) {
        // Let what was written reach the client first, then cut the connection.
        await delay(50);
        response.socket?.destroy();
        return;
      }
      if (fault?.kind === 'malformed' && index === fault.afterChunks) {
        response.write(writer.malformedFrame());
      }
      if (turn.chunkDelayMs !== undefined && turn.chunkDelayMs > 0) await delay(turn.chunkDelayMs);
      if (!response.write(frames[index])) await new Promise<void>((resolve) => response.once('drain', resolve));
    }
    response.end();
  }

  /** Scripting over HTTP, for a server running in another process: enqueue turns, or reset. */
  private async control(path: string, request: IncomingMessage, response: ServerResponse): Promise<void> {
    if (path === '/__script/reset') {
      this.reset();
    } else if (path === '/__script/enqueue') {
      const body = JSON.parse(await readBody(request)) as { turns?: ScriptedTurn[] };
      this.enqueue(...(body.turns ?? []));
    } else {
      response.writeHead(404).end();
      return;
    }
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ pending: this.queue.length }));
  }

  private sendModels(protocol: Protocol, response: ServerResponse): void {
    const body = protocol === 'anthropic' ? anthropicModels(this.local) : openAIModels(this.local);
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  }
}

/** Sends a server's refusal: a status with its body, or a stream that carries only the error. */
function refuse(refusal: Refusal, writer: ProtocolWriter, response: ServerResponse): void {
  if (refusal.kind === 'status') {
    response.writeHead(refusal.status, { 'content-type': 'application/json' }).end(JSON.stringify(refusal.body));
    return;
  }
  response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  response.end(writer.errorFrame(refusal.body));
}

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    request.on('error', reject);
  });
}

const delay = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
