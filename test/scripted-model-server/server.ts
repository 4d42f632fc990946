import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { anthropicWriter, openAIWriter, type ProtocolWriter } from './protocols';
import type { ScriptedTurn } from './script';

export type Protocol = 'openai' | 'anthropic';

export interface RecordedRequest {
  readonly protocol: Protocol;
  readonly path: string;
  readonly headers: IncomingMessage['headers'];
  readonly body: Record<string, unknown>;
  /** `performance.now()` when the whole request had arrived: benchmarks time the way to the model by it. */
  readonly receivedAt: number;
}

export interface ScriptedModelServerOptions {
  readonly models?: readonly { id: string; contextLength?: number }[];
  /** Answers a request when no turn is queued; without it such a request gets a 500. */
  readonly fallback?: (request: RecordedRequest) => ScriptedTurn;
}

/**
 * A real HTTP server on 127.0.0.1 that speaks the OpenAI chat-completions and the Anthropic
 * Messages streaming protocols and replays scripted turns, faults included. Each request takes
 * the next queued turn, whichever protocol asks.
 */
export class ScriptedModelServer {
  readonly requests: RecordedRequest[] = [];
  private readonly queue: ScriptedTurn[] = [];
  private readonly sockets = new Set<Socket>();

  private constructor(
    private readonly server: Server,
    readonly url: string,
    private readonly options: ScriptedModelServerOptions,
  ) {
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

  enqueue(...turns: ScriptedTurn[]): void {
    this.queue.push(...turns);
  }

  /** Forgets queued turns and recorded requests, for the next test. */
  reset(): void {
    this.queue.length = 0;
    this.requests.length = 0;
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
    if (request.method === 'GET' && path === '/v1/models') {
      this.sendModels(protocol, response);
      return;
    }
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
    const recorded: RecordedRequest = { protocol, path, headers: request.headers, body, receivedAt };
    this.requests.push(recorded);
    const turn = this.queue.shift() ?? this.options.fallback?.(recorded);
    const writer: ProtocolWriter = protocol === 'anthropic' ? anthropicWriter : openAIWriter;
    if (!turn) {
      response.writeHead(500, { 'content-type': 'application/json' }).end(writer.errorBody(500, 'No scripted turn is queued.'));
      return;
    }
    await this.stream(turn, writer, recorded, response);
  }

  private async stream(turn: ScriptedTurn, writer: ProtocolWriter, request: RecordedRequest, response: ServerResponse): Promise<void> {
    const fault = turn.fault;
    if (fault?.kind === 'status') {
      const headers: Record<string, string> = { 'content-type': 'application/json' };
      if (fault.retryAfterSeconds !== undefined) headers['retry-after'] = String(fault.retryAfterSeconds);
      response.writeHead(fault.status, headers).end(writer.errorBody(fault.status, fault.message ?? `Scripted failure ${fault.status}`));
      return;
    }
    response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
    response.flushHeaders();
    if (fault?.kind === 'stall') return;
    const model = typeof request.body['model'] === 'string' ? request.body['model'] : 'scripted';
    const streamOptions = request.body['stream_options'] as { include_usage?: unknown } | undefined;
    const frames = writer.frames(turn, model, streamOptions?.include_usage === true);
    for (let index = 0; index < frames.length; index += 1) {
      if (response.destroyed) return;
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
    const models = this.options.models ?? [{ id: 'scripted-model', contextLength: 32768 }];
    const body =
      protocol === 'anthropic'
        ? {
            data: models.map((model) => ({
              type: 'model',
              id: model.id,
              display_name: model.id,
              created_at: '2026-01-01T00:00:00Z',
              ...(model.contextLength ? { max_input_tokens: model.contextLength } : {}),
            })),
            has_more: false,
            first_id: models[0]?.id ?? null,
            last_id: models.at(-1)?.id ?? null,
          }
        : {
            object: 'list',
            data: models.map((model) => ({
              id: model.id,
              object: 'model',
              created: 0,
              owned_by: 'scripted',
              ...(model.contextLength ? { max_model_len: model.contextLength } : {}),
            })),
          };
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  }
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
