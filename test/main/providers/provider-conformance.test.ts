import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Clock } from '../../../src/main/agent/ports/clock';
import type { ModelProvider, ModelStreamEvent } from '../../../src/main/agent/ports/model-provider';
import { RetryingModelProvider } from '../../../src/main/agent/rules/retry';
import { AnthropicProvider } from '../../../src/main/providers/anthropic-provider';
import { OllamaProvider } from '../../../src/main/providers/ollama-provider';
import { OpenAICompatibleProvider } from '../../../src/main/providers/openai-compatible-provider';
import { closedPort } from '../../helpers';
import { ScriptedModelServer, textTurn } from '../../scripted-model-server';

/** One suite, run against every protocol (through the official SDKs where there is one) and the scripted server. */
interface ProviderFixture {
  readonly name: string;
  /** Whether the protocol streams a tool call's arguments in pieces; Ollama sends each call whole. */
  readonly streamsToolArguments: boolean;
  /** The protocol's error inside a stream that has begun. */
  streamError(message: string): unknown;
  create(server: ScriptedModelServer, options?: { idleTimeoutMs?: number; baseUrl?: string }): ModelProvider;
}

const fixtures: ProviderFixture[] = [
  {
    name: 'OpenAI-compatible',
    streamsToolArguments: true,
    streamError: (message) => ({ error: { message, type: 'server_error', code: null } }),
    create: (server, options = {}) =>
      new OpenAICompatibleProvider({
        baseUrl: options.baseUrl ?? server.openaiBaseUrl,
        ...(options.idleTimeoutMs ? { idleTimeoutMs: options.idleTimeoutMs } : {}),
      }),
  },
  {
    name: 'Anthropic',
    streamsToolArguments: true,
    streamError: (message) => ({ type: 'error', error: { type: 'api_error', message } }),
    create: (server, options = {}) =>
      new AnthropicProvider({
        baseUrl: options.baseUrl ?? server.anthropicBaseUrl,
        apiKey: 'test-key',
        ...(options.idleTimeoutMs ? { idleTimeoutMs: options.idleTimeoutMs } : {}),
      }),
  },
  {
    name: 'Ollama',
    streamsToolArguments: false,
    streamError: (message) => ({ error: message }),
    create: (server, options = {}) =>
      new OllamaProvider({
        baseUrl: options.baseUrl ?? server.ollamaBaseUrl,
        ...(options.idleTimeoutMs ? { idleTimeoutMs: options.idleTimeoutMs } : {}),
      }),
  },
];

/** A clock whose sleeps return at once but are recorded, so backoff is checked without waiting. */
function instantClock(): Clock & { sleeps: number[] } {
  const sleeps: number[] = [];
  return {
    sleeps,
    now: () => Date.now(),
    sleep: async (ms, signal) => {
      if (signal?.aborted) throw signal.reason;
      sleeps.push(ms);
    },
  };
}

async function collect(stream: AsyncIterable<ModelStreamEvent>): Promise<ModelStreamEvent[]> {
  const events: ModelStreamEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

const textOf = (events: readonly ModelStreamEvent[], type: 'text_delta' | 'reasoning_delta'): string =>
  events.map((event) => (event.type === type ? event.text : '')).join('');
const request = { model: 'scripted-model', messages: [{ role: 'user' as const, content: 'hello' }] };

describe.each(fixtures)('$name provider', (fixture) => {
  let server: ScriptedModelServer;
  beforeAll(async () => {
    server = await ScriptedModelServer.start({ models: [{ id: 'scripted-model', contextLength: 8192 }, { id: 'other-model' }] });
  });
  afterAll(async () => server.close());
  beforeEach(() => {
    server.reset();
  });

  it('streams text as deltas and ends with usage and done', async () => {
    server.enqueue({ steps: [{ kind: 'text', text: 'Hello there, friend.', chunkSize: 3 }], usage: { inputTokens: 12, outputTokens: 5 } });
    const events = await collect(fixture.create(server).stream(request, new AbortController().signal));
    expect(textOf(events, 'text_delta')).toBe('Hello there, friend.');
    expect(events.filter((event) => event.type === 'text_delta').length).toBeGreaterThan(3);
    expect(events).toContainEqual({ type: 'usage', inputTokens: 12, outputTokens: 5 });
    expect(events.at(-1)).toEqual({ type: 'done', stopReason: 'end_turn' });
  });

  it('streams reasoning apart from the answer', async () => {
    server.enqueue({
      steps: [
        { kind: 'reasoning', text: 'Think first.' },
        { kind: 'text', text: 'Answer.' },
      ],
    });
    const events = await collect(fixture.create(server).stream(request, new AbortController().signal));
    expect(textOf(events, 'reasoning_delta')).toBe('Think first.');
    expect(textOf(events, 'text_delta')).toBe('Answer.');
  });

  it('assembles tool call arguments split across chunks', async () => {
    const args = JSON.stringify({ path: 'src/index.ts', startLine: 1, endLine: 40 });
    server.enqueue({
      steps: [
        { kind: 'text', text: 'Reading.' },
        { kind: 'tool_call', id: 'call_1', name: 'read_file', arguments: args, chunks: 5 },
      ],
    });
    const events = await collect(fixture.create(server).stream(request, new AbortController().signal));
    const deltas = events.filter((event) => event.type === 'tool_call_arguments_delta');
    if (fixture.streamsToolArguments) expect(deltas.length).toBeGreaterThanOrEqual(5);
    expect(deltas.map((delta) => delta.delta).join('')).toBe(args);
    expect(events).toContainEqual(expect.objectContaining({ type: 'tool_call_started', id: 'call_1', name: 'read_file' }));
    expect(events).toContainEqual(expect.objectContaining({ type: 'tool_call_ready', id: 'call_1', name: 'read_file', arguments: args }));
    expect(events.at(-1)).toEqual({ type: 'done', stopReason: 'tool_use' });
  });

  it('sends the conversation and the system prompt to the endpoint', async () => {
    server.enqueue(textTurn('ok'));
    await collect(
      fixture.create(server).stream(
        {
          ...request,
          system: 'Be brief.',
          messages: [
            { role: 'user', content: 'one' },
            { role: 'assistant', content: 'two' },
            { role: 'user', content: 'three' },
          ],
        },
        new AbortController().signal,
      ),
    );
    const body = JSON.stringify(server.requests[0]?.body);
    for (const word of ['Be brief.', 'one', 'two', 'three']) expect(body).toContain(word);
    expect(server.requests[0]?.body['stream']).toBe(true);
  });

  it('retries a 429 with the server’s Retry-After, then streams', async () => {
    server.enqueue({ steps: [], fault: { kind: 'status', status: 429, retryAfterSeconds: 2 } }, textTurn('after the wait'));
    const clock = instantClock();
    const events = await collect(new RetryingModelProvider(fixture.create(server), clock).stream(request, new AbortController().signal));
    expect(events[0]).toMatchObject({ type: 'retry_scheduled', attempt: 1, delayMs: 2000, error: { code: 'model_rate_limited' } });
    expect(textOf(events, 'text_delta')).toBe('after the wait');
    expect(clock.sleeps).toEqual([2000]);
  });

  it('retries 5xx with growing, bounded delays and gives up with a clear error', async () => {
    for (let index = 0; index < 4; index += 1) server.enqueue({ steps: [], fault: { kind: 'status', status: 503, message: 'overloaded' } });
    const clock = instantClock();
    const provider = new RetryingModelProvider(
      fixture.create(server),
      clock,
      { maxAttempts: 4, baseDelayMs: 100, maxDelayMs: 1000 },
      () => 0.5,
    );
    const events = await collect(provider.stream(request, new AbortController().signal));
    expect(server.requests).toHaveLength(4);
    expect(clock.sleeps).toEqual([75, 150, 300]);
    const last = events.at(-1);
    expect(last).toMatchObject({ type: 'error', error: { code: 'model_server_error', retryable: true } });
    expect(last?.type === 'error' && last.error.message).toContain('503');
  });

  it('does not retry a request the server rejects', async () => {
    server.enqueue({ steps: [], fault: { kind: 'status', status: 400, message: 'model not found' } });
    const events = await collect(
      new RetryingModelProvider(fixture.create(server), instantClock()).stream(request, new AbortController().signal),
    );
    expect(server.requests).toHaveLength(1);
    expect(events.at(-1)).toMatchObject({ type: 'error', error: { code: 'model_request_rejected' } });
    expect(events.at(-1)?.type === 'error' && events.at(-1)).toMatchObject({
      error: { message: expect.stringContaining('model not found') },
    });
  });

  it('reports a connection dropped mid-stream without retrying what was already shown', async () => {
    server.enqueue({
      steps: [{ kind: 'text', text: 'partial answer that is cut', chunkSize: 2 }],
      fault: { kind: 'drop', afterChunks: 5 },
    });
    const events = await collect(
      new RetryingModelProvider(fixture.create(server), instantClock()).stream(request, new AbortController().signal),
    );
    expect(server.requests).toHaveLength(1);
    expect(textOf(events, 'text_delta').length).toBeGreaterThan(0);
    expect(events.at(-1)).toMatchObject({ type: 'error', error: { code: 'model_stream_interrupted' } });
  });

  it('reports an error the server sends inside the stream, after what came before it', async () => {
    server.enqueue({
      steps: [{ kind: 'text', text: 'so far so good', chunkSize: 2 }],
      fault: { kind: 'stream_error', afterChunks: 4, body: fixture.streamError('model runner has unexpectedly stopped') },
    });
    const events = await collect(fixture.create(server).stream(request, new AbortController().signal));
    expect(textOf(events, 'text_delta').length).toBeGreaterThan(0);
    const last = events.at(-1);
    expect(last).toMatchObject({ type: 'error' });
    expect(last?.type === 'error' && last.error.message).toContain('model runner has unexpectedly stopped');
    expect(events.some((event) => event.type === 'done')).toBe(false);
  });

  it('says when the answer stopped at its output limit', async () => {
    server.enqueue({ steps: [{ kind: 'text', text: 'cut short' }], stoppedAtLimit: true });
    const events = await collect(fixture.create(server).stream(request, new AbortController().signal));
    expect(events.at(-1)).toEqual({ type: 'done', stopReason: 'max_tokens' });
  });

  it('reports a malformed chunk as a bad response', async () => {
    server.enqueue({ steps: [{ kind: 'text', text: 'some text here' }], fault: { kind: 'malformed', afterChunks: 3 } });
    const events = await collect(fixture.create(server).stream(request, new AbortController().signal));
    expect(events.at(-1)).toMatchObject({ type: 'error', error: { code: 'model_bad_response' } });
  });

  it('stops a slow stream promptly when aborted', async () => {
    server.enqueue(textTurn('slow '.repeat(200), { chunkSize: 5, chunkDelayMs: 50 }));
    const controller = new AbortController();
    const events: ModelStreamEvent[] = [];
    const started = Date.now();
    let abortedAt = 0;
    for await (const event of fixture.create(server).stream(request, controller.signal)) {
      events.push(event);
      if (event.type === 'text_delta' && abortedAt === 0) {
        abortedAt = Date.now();
        controller.abort();
      }
    }
    expect(Date.now() - abortedAt).toBeLessThan(500);
    expect(Date.now() - started).toBeLessThan(5000);
    expect(events.at(-1)).toMatchObject({ type: 'error', error: { code: 'cancelled' } });
  });

  it('times out a stream that stalls', async () => {
    server.enqueue({ steps: [], fault: { kind: 'stall' } });
    const events = await collect(fixture.create(server, { idleTimeoutMs: 300 }).stream(request, new AbortController().signal));
    expect(events.at(-1)).toMatchObject({ type: 'error', error: { code: 'model_timeout', retryable: true } });
  });

  it('says plainly when nothing listens at the endpoint', async () => {
    const port = await closedPort();
    const base = `http://127.0.0.1:${port}`;
    const events = await collect(
      // Ollama's provider takes the root and drops a /v1 typed after it, so it gets the /v1 form to prove it.
      fixture.create(server, { baseUrl: fixture.name === 'Anthropic' ? base : `${base}/v1` }).stream(request, new AbortController().signal),
    );
    const last = events.at(-1);
    expect(last).toMatchObject({ type: 'error', error: { code: 'model_connection_failed', retryable: true } });
    expect(last?.type === 'error' && last.error.message).toContain(base);
    // In words, with the next step, not the socket's error code.
    expect(last?.type === 'error' && last.error.message).toContain('Nothing is listening at');
    expect(last?.type === 'error' && last.error.message).not.toContain('ECONNREFUSED');
  });

  it('lists the endpoint’s models with their context length', async () => {
    const models = await fixture.create(server).listModels(new AbortController().signal);
    expect(models).toEqual([{ id: 'scripted-model', contextLength: 8192 }, { id: 'other-model' }]);
  });
});

describe('Anthropic provider without a key', () => {
  it('says which key is missing instead of sending a request', async () => {
    const server = await ScriptedModelServer.start();
    const provider = new AnthropicProvider({ baseUrl: server.anthropicBaseUrl, apiKey: null });
    const events = await collect(provider.stream(request, new AbortController().signal));
    expect(events).toEqual([
      { type: 'error', error: { code: 'model_auth_failed', message: expect.stringContaining('ANTHROPIC_API_KEY') } },
    ]);
    await expect(provider.listModels(new AbortController().signal)).rejects.toMatchObject({ code: 'model_auth_failed' });
    expect(server.requests).toHaveLength(0);
    await server.close();
  });
});
