import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ModelRequest, ModelStreamEvent } from '../../../src/main/agent/ports/model-provider';
import { OllamaProvider } from '../../../src/main/providers/ollama-provider';
import { closedPort } from '../../helpers';
import { json, startRawServer, type RawRoute } from './raw-server';
import { ScriptedModelServer, textTurn } from '../../scripted-model-server';

async function collect(stream: AsyncIterable<ModelStreamEvent>): Promise<ModelStreamEvent[]> {
  const events: ModelStreamEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

const never = (): AbortSignal => new AbortController().signal;
const textOf = (events: readonly ModelStreamEvent[]): string =>
  events.map((event) => (event.type === 'text_delta' ? event.text : '')).join('');
const request: ModelRequest = { model: 'llama3.2', messages: [{ role: 'user', content: 'hello' }] };
const words = (count: number): string => Array.from({ length: count }, () => 'word').join(' ');

/** A route that answers 200 with these NDJSON lines, as Ollama streams. */
const ndjson =
  (lines: string): RawRoute =>
  (_incoming, response) => {
    response.writeHead(200, { 'content-type': 'application/x-ndjson' }).end(lines);
  };

describe('Ollama provider', () => {
  let server: ScriptedModelServer;
  let provider: OllamaProvider;
  beforeAll(async () => {
    server = await ScriptedModelServer.start({
      models: [{ id: 'llama3.2:latest', contextLength: 131072 }, { id: 'qwen3:8b', contextLength: 40960 }, { id: 'mystery' }],
      ollama: { modelfileNumCtx: { 'qwen3:8b': 16384 } },
    });
    provider = new OllamaProvider({ baseUrl: server.ollamaBaseUrl });
  });
  afterAll(async () => server.close());
  beforeEach(() => server.reset());

  describe('streaming', () => {
    it('streams thinking and text, then the counts of the final frame and the reason', async () => {
      server.enqueue({
        steps: [
          { kind: 'reasoning', text: 'The user greets.' },
          { kind: 'text', text: 'Hello there!', chunkSize: 3 },
        ],
        usage: { inputTokens: 31, outputTokens: 9 },
      });
      const events = await collect(provider.stream(request, never()));
      expect(
        events.filter((event) => event.type === 'reasoning_delta').map((event) => event.type === 'reasoning_delta' && event.text),
      ).toEqual(['The ', 'user', ' gre', 'ets.']);
      expect(textOf(events)).toBe('Hello there!');
      expect(events.slice(-2)).toEqual([
        { type: 'usage', inputTokens: 31, outputTokens: 9 },
        { type: 'done', stopReason: 'end_turn' },
      ]);
    });

    it('turns a tool call sent in a frame of its own into started, arguments and ready, with the object as JSON text', async () => {
      server.enqueue({
        steps: [
          { kind: 'text', text: 'Let me look.' },
          { kind: 'tool_call', id: 'call_x1', name: 'read_file', arguments: '{"path":"src/a.ts","lines":[1,20]}' },
        ],
      });
      const events = await collect(provider.stream(request, never()));
      const tools = events.filter((event) => event.type.startsWith('tool_call'));
      expect(tools).toEqual([
        { type: 'tool_call_started', index: 0, id: 'call_x1', name: 'read_file' },
        { type: 'tool_call_arguments_delta', index: 0, id: 'call_x1', delta: '{"path":"src/a.ts","lines":[1,20]}' },
        { type: 'tool_call_ready', index: 0, id: 'call_x1', name: 'read_file', arguments: '{"path":"src/a.ts","lines":[1,20]}' },
      ]);
      expect(events.at(-1)).toEqual({ type: 'done', stopReason: 'tool_use' });
    });

    it('takes several tool calls from the final frame alone, each with its own index', async () => {
      server.enqueue({
        toolCallFrame: 'final',
        steps: [
          { kind: 'tool_call', id: 'call_a', name: 'list_dir', arguments: '{"path":"."}' },
          { kind: 'tool_call', id: 'call_b', name: 'read_file', arguments: '{"path":"README.md"}' },
          { kind: 'text', text: 'Looking.' },
        ],
      });
      const events = await collect(provider.stream(request, never()));
      // The calls came with the final frame, after all the text.
      const lastText = events.findLastIndex((event) => event.type === 'text_delta');
      expect(events.findIndex((event) => event.type === 'tool_call_started')).toBeGreaterThan(lastText);
      expect(events.filter((event) => event.type === 'tool_call_ready')).toEqual([
        { type: 'tool_call_ready', index: 0, id: 'call_a', name: 'list_dir', arguments: '{"path":"."}' },
        { type: 'tool_call_ready', index: 1, id: 'call_b', name: 'read_file', arguments: '{"path":"README.md"}' },
      ]);
      expect(events.at(-1)).toEqual({ type: 'done', stopReason: 'tool_use' });
    });

    it('names tool calls that come without an id by their place', async () => {
      server.enqueue({
        steps: [
          { kind: 'tool_call', id: '', name: 'list_dir', arguments: '{}' },
          { kind: 'tool_call', id: '', name: 'list_dir', arguments: '{"path":"src"}' },
        ],
      });
      const events = await collect(provider.stream(request, never()));
      expect(
        events.filter((event) => event.type === 'tool_call_started').map((event) => event.type === 'tool_call_started' && event.id),
      ).toEqual(['call_0', 'call_1']);
    });

    it('reports an answer cut at num_predict as max_tokens, even with a tool call in it', async () => {
      server.enqueue({ steps: [{ kind: 'tool_call', id: 'c', name: 'write_file', arguments: '{}' }], stoppedAtLimit: true });
      const events = await collect(provider.stream(request, never()));
      expect(events.at(-1)).toEqual({ type: 'done', stopReason: 'max_tokens' });
    });
  });

  describe('the request', () => {
    it('sends the conversation in Ollama’s shape: system message, object arguments, tool results with the tool’s name', async () => {
      server.enqueue(textTurn('ok'));
      await collect(
        provider.stream(
          {
            model: 'llama3.2',
            system: 'Be brief.',
            messages: [
              { role: 'user', content: 'What is in src?' },
              {
                role: 'assistant',
                content: '',
                toolCalls: [
                  { id: 'call_1', name: 'list_dir', arguments: '{"path":"src"}' },
                  { id: 'call_2', name: 'read_file', arguments: 'not json' },
                ],
              },
              { role: 'tool', toolCallId: 'call_1', content: 'a.ts\nb.ts' },
              { role: 'tool', toolCallId: 'call_2', content: 'bad arguments', isError: true },
            ],
            tools: [
              {
                name: 'list_dir',
                description: 'Lists a folder.',
                inputSchema: { type: 'object', properties: { path: { type: 'string' } } },
              },
            ],
          },
          never(),
        ),
      );
      const body = server.requests[0]?.body;
      expect(server.requests[0]).toMatchObject({ protocol: 'ollama', path: '/api/chat' });
      expect(body).toMatchObject({ model: 'llama3.2', stream: true, keep_alive: '30m' });
      expect(body?.['messages']).toEqual([
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'What is in src?' },
        {
          role: 'assistant',
          content: '',
          tool_calls: [
            { id: 'call_1', function: { name: 'list_dir', arguments: { path: 'src' } } },
            { id: 'call_2', function: { name: 'read_file', arguments: {} } },
          ],
        },
        { role: 'tool', content: 'a.ts\nb.ts', tool_call_id: 'call_1', tool_name: 'list_dir' },
        { role: 'tool', content: 'bad arguments', tool_call_id: 'call_2', tool_name: 'read_file' },
      ]);
      expect(body?.['tools']).toEqual([
        {
          type: 'function',
          function: {
            name: 'list_dir',
            description: 'Lists a folder.',
            parameters: { type: 'object', properties: { path: { type: 'string' } } },
          },
        },
      ]);
    });

    it('sends the window and the answer’s room as num_ctx and num_predict, and the keep-alive it was given', async () => {
      server.enqueue(textTurn('ok'));
      const keeping = new OllamaProvider({ baseUrl: server.ollamaBaseUrl, keepAlive: '2h' });
      await collect(keeping.stream({ ...request, contextWindow: 32768, maxTokens: 4096 }, never()));
      expect(server.requests[0]?.body).toMatchObject({ options: { num_ctx: 32768, num_predict: 4096 }, keep_alive: '2h' });
      expect(server.requests[0]?.context?.window).toBe(32768);
    });

    it('sends no options when the request sets neither', async () => {
      server.enqueue(textTurn('ok'));
      await collect(provider.stream(request, never()));
      expect(server.requests[0]?.body).not.toHaveProperty('options');
    });

    it('accepts the address of Ollama’s OpenAI-compatible API, and sends a key as a bearer token', async () => {
      server.enqueue(textTurn('ok'));
      const typed = new OllamaProvider({ baseUrl: `${server.ollamaBaseUrl}/v1/`, apiKey: 'secret' });
      expect(textOf(await collect(typed.stream(request, never())))).toBe('ok');
      expect(server.requests[0]?.headers['authorization']).toBe('Bearer secret');
    });
  });

  describe('the window', () => {
    it('lets Ollama truncate silently when no num_ctx is sent, and shows it in the prompt count', async () => {
      const long: ModelRequest = {
        model: 'llama3.2',
        system: 'You are a careful assistant.',
        messages: [
          { role: 'user', content: words(3000) },
          { role: 'assistant', content: words(2000) },
          { role: 'user', content: 'So what now?' },
        ],
      };
      server.enqueue(textTurn('ok'));
      const events = await collect(provider.stream(long, never()));
      const context = server.requests[0]?.context;
      expect(context).toMatchObject({ window: 4096, droppedMessages: 1, shifted: false });
      expect(context!.keptTokens).toBeLessThan(context!.promptTokens);
      expect(events).toContainEqual({ type: 'usage', inputTokens: context!.keptTokens, outputTokens: expect.any(Number) });

      // With the window chosen by the app, Ollama is asked to refuse what does not fit instead of cutting it.
      server.reset();
      const refused = await collect(provider.stream({ ...long, contextWindow: 2048 }, never()));
      expect(server.requests[0]?.body).toMatchObject({ truncate: false, shift: false, options: { num_ctx: 2048 } });
      expect(server.requests[0]?.context).toMatchObject({ droppedMessages: 0, refused: true });
      expect(refused).toEqual([{ type: 'error', error: expect.objectContaining({ code: 'model_context_overflow' }) }]);

      server.reset();
      server.enqueue(textTurn('ok'));
      const fitting = await collect(provider.stream({ ...long, contextWindow: 16384 }, never()));
      expect(server.requests[0]?.context).toMatchObject({ window: 16384, droppedMessages: 0 });
      expect(fitting).toContainEqual({
        type: 'usage',
        inputTokens: server.requests[0]!.context!.promptTokens,
        outputTokens: expect.any(Number),
      });
    });

    it('reads the trained window from /api/show and the loaded one from /api/ps once a request loaded the model', async () => {
      expect(await provider.window('llama3.2', never())).toEqual({
        loaded: null,
        trained: 131072,
        source: 'reported by Ollama',
        route: expect.stringContaining('/api/ps'),
      });
      server.enqueue(textTurn('ok'));
      await collect(provider.stream({ ...request, contextWindow: 12288 }, never()));
      expect(await provider.window('llama3.2', never())).toMatchObject({ loaded: 12288, trained: 131072 });
    });

    it('takes a Modelfile’s num_ctx as the window while the model is not loaded', async () => {
      expect(await provider.window('qwen3:8b', never())).toMatchObject({ loaded: 16384, trained: 40960 });
    });

    it('returns null for a model that reports no window at all', async () => {
      expect(await provider.window('mystery', never())).toBeNull();
    });

    it('says which model Ollama does not know', async () => {
      await expect(provider.window('gone:7b', never())).rejects.toMatchObject({
        code: 'model_request_rejected',
        message: expect.stringContaining("model 'gone:7b' not found"),
      });
    });

    it('ignores figures that cannot be windows', async () => {
      const cases: { show: Record<string, unknown>; ps: unknown; expected: unknown }[] = [
        { show: { 'general.architecture': 'llama', 'llama.context_length': 0 }, ps: -1, expected: null },
        { show: { 'general.architecture': 'llama', 'llama.context_length': 5e12 }, ps: '8192', expected: null },
        { show: { 'general.architecture': 'llama', 'llama.context_length': 'big' }, ps: 8192.5, expected: { loaded: 8192, trained: null } },
        { show: { 'llama.context_length': 8192 }, ps: null, expected: null },
      ];
      for (const { show, ps, expected } of cases) {
        const raw = await startRawServer({
          'POST /api/show': json({ model_info: show, parameters: 'num_ctx                        -4\nstop "x"' }),
          'GET /api/ps': json({ models: [{ name: 'odd:latest', model: 'odd:latest', context_length: ps }] }),
        });
        const window = await new OllamaProvider({ baseUrl: raw.url }).window('odd', never());
        await raw.close();
        if (expected === null) expect(window).toBeNull();
        else expect(window).toMatchObject(expected as object);
      }
    });
  });

  describe('failures', () => {
    it('reports an error line in the middle of the stream as the server failing, keeping what came before', async () => {
      server.enqueue({
        steps: [{ kind: 'text', text: 'Partial answer', chunkSize: 4 }],
        fault: { kind: 'stream_error', afterChunks: 2, body: { error: 'model runner has unexpectedly stopped' } },
      });
      const events = await collect(provider.stream(request, never()));
      expect(textOf(events)).toBe('Partial ');
      expect(events.at(-1)).toEqual({
        type: 'error',
        error: { code: 'model_server_error', message: expect.stringContaining('model runner has unexpectedly stopped'), retryable: true },
      });
    });

    it('reports an unknown model with Ollama’s own message, not as worth retrying', async () => {
      const events = await collect(provider.stream({ ...request, model: 'gone:7b' }, never()));
      expect(events).toEqual([
        { type: 'error', error: { code: 'model_request_rejected', message: expect.stringContaining("model 'gone:7b' not found") } },
      ]);
      expect(events[0]?.type === 'error' && events[0].error.message).toContain('404');
    });

    it('marks a failing or busy server as worth retrying, with Ollama’s message', async () => {
      server.enqueue(
        { steps: [], fault: { kind: 'status', status: 500, message: 'llama runner process has terminated' } },
        { steps: [], fault: { kind: 'status', status: 503, message: 'server busy, please try again' } },
      );
      expect((await collect(provider.stream(request, never()))).at(-1)).toEqual({
        type: 'error',
        error: { code: 'model_server_error', message: expect.stringContaining('llama runner process has terminated'), retryable: true },
      });
      expect((await collect(provider.stream(request, never()))).at(-1)).toEqual({
        type: 'error',
        error: {
          code: 'model_server_error',
          message: expect.stringMatching(/failed \(503\)\..*The server said: server busy/),
          retryable: true,
        },
      });
    });

    it('reports a prompt Ollama refuses as too long as a context overflow', async () => {
      const strict = await ScriptedModelServer.start({ models: [{ id: 'llama3.2:latest' }], ollama: { contextShift: false } });
      const events = await collect(
        new OllamaProvider({ baseUrl: strict.ollamaBaseUrl }).stream(
          { ...request, messages: [{ role: 'user', content: words(500) }], contextWindow: 256 },
          never(),
        ),
      );
      await strict.close();
      expect(events).toEqual([
        { type: 'error', error: { code: 'model_context_overflow', message: expect.stringContaining('longer than the context length') } },
      ]);
    });

    it('reads the window from llama-server’s refusal, which Ollama passes on as text, when it runs the chat itself', async () => {
      const refusal = {
        error: {
          code: 400,
          message: 'request (5120 tokens) exceeds the available context size (4096 tokens), try increasing it',
          type: 'exceed_context_size_error',
          n_prompt_tokens: 5120,
          n_ctx: 4096,
        },
      };
      server.enqueue({ steps: [], fault: { kind: 'status', status: 400, body: { error: JSON.stringify(refusal) } } });
      const events = await collect(provider.stream(request, never()));
      expect(events).toEqual([
        {
          type: 'error',
          error: {
            code: 'model_context_overflow',
            message: expect.stringMatching(/the prompt is 5120 tokens, the window is 4096 tokens.*try increasing it$/),
          },
          window: 4096,
          promptTokens: 5120,
        },
      ]);
    });

    it('says plainly when nothing listens at the address', async () => {
      const base = `http://127.0.0.1:${await closedPort()}`;
      const offline = new OllamaProvider({ baseUrl: base });
      const events = await collect(offline.stream(request, never()));
      expect(events).toEqual([
        {
          type: 'error',
          error: {
            code: 'model_connection_failed',
            message: expect.stringMatching(/^Nothing is listening at .*: the model server is not running there, or uses another port\.$/),
            retryable: true,
            detail: expect.stringContaining('ECONNREFUSED'),
          },
        },
      ]);
      expect(events[0]?.type === 'error' && events[0].error.message).toContain(base);
      await expect(offline.listModels(never())).rejects.toMatchObject({ code: 'model_connection_failed' });
    });

    it('stops promptly when aborted', async () => {
      server.enqueue(textTurn('slow '.repeat(200), { chunkSize: 5, chunkDelayMs: 50 }));
      const controller = new AbortController();
      const events: ModelStreamEvent[] = [];
      let abortedAt = 0;
      for await (const event of provider.stream(request, controller.signal)) {
        events.push(event);
        if (event.type === 'text_delta' && abortedAt === 0) {
          abortedAt = Date.now();
          controller.abort();
        }
      }
      expect(Date.now() - abortedAt).toBeLessThan(500);
      expect(events.at(-1)).toEqual({ type: 'error', error: { code: 'cancelled', message: 'Stopped by the user.' } });
    });

    it('keeps waiting while pieces keep coming, however long the whole answer takes', async () => {
      server.enqueue(textTurn('steady '.repeat(6), { chunkSize: 7, chunkDelayMs: 120 }));
      const patient = new OllamaProvider({ baseUrl: server.ollamaBaseUrl, idleTimeoutMs: 400 });
      const events = await collect(patient.stream(request, never()));
      expect(textOf(events)).toBe('steady '.repeat(6));
      expect(events.at(-1)).toEqual({ type: 'done', stopReason: 'end_turn' });
    });

    it('reports a stream that ends without its final frame as interrupted', async () => {
      const raw = await startRawServer({
        'POST /api/chat': ndjson('{"model":"m","message":{"role":"assistant","content":"Half"},"done":false}\n'),
      });
      const events = await collect(new OllamaProvider({ baseUrl: raw.url }).stream(request, never()));
      await raw.close();
      expect(textOf(events)).toBe('Half');
      expect(events.at(-1)).toMatchObject({ type: 'error', error: { code: 'model_stream_interrupted', retryable: true } });
    });

    it('reports a frame of the wrong shape as a bad response', async () => {
      const raw = await startRawServer({
        'POST /api/chat': ndjson('{"model":"m","message":{"role":"assistant","content":42},"done":false}\n'),
      });
      const events = await collect(new OllamaProvider({ baseUrl: raw.url }).stream(request, never()));
      await raw.close();
      expect(events).toEqual([
        {
          type: 'error',
          error: {
            code: 'model_bad_response',
            message: expect.stringMatching(/sent an answer the app could not read\.$/),
            detail: expect.stringContaining('message.content'),
          },
        },
      ]);
    });
  });

  it('reads lines that arrive in pieces, several in one piece, and a character split between pieces', async () => {
    const frames = [
      { message: { role: 'assistant', content: 'Grüß ' }, done: false },
      { message: { role: 'assistant', content: 'dich 👋' }, done: false },
      { message: { role: 'assistant', content: '' }, done: true, done_reason: 'stop', prompt_eval_count: 7, eval_count: 3 },
    ];
    const bytes = Buffer.from(frames.map((frame) => `${JSON.stringify(frame)}\n`).join(''));
    // Cut inside the first frame, inside the emoji's four bytes, and keep the last two lines in one piece.
    const emoji = bytes.indexOf(Buffer.from('👋'));
    const secondEnd = bytes.indexOf('\n', emoji) + 1;
    const cuts = [0, 9, 23, emoji + 2, secondEnd - 5, bytes.length];
    const raw = await startRawServer({
      'POST /api/chat': (_incoming, response) => {
        response.writeHead(200, { 'content-type': 'application/x-ndjson' });
        void (async () => {
          for (let index = 1; index < cuts.length; index += 1) {
            response.write(bytes.subarray(cuts[index - 1], cuts[index]));
            await new Promise((resolve) => setTimeout(resolve, 15));
          }
          response.end();
        })();
      },
    });
    const events = await collect(new OllamaProvider({ baseUrl: raw.url }).stream(request, never()));
    await raw.close();
    expect(textOf(events)).toBe('Grüß dich 👋');
    expect(events.slice(-2)).toEqual([
      { type: 'usage', inputTokens: 7, outputTokens: 3 },
      { type: 'done', stopReason: 'end_turn' },
    ]);
  });

  it('reports the whole prompt as input and nothing as cached: Ollama does not say how much it reused', async () => {
    // Ollama 0.30.1 and later on a second request: the runner reused 1498 of 1530 tokens, and prompt_eval_count is
    // llama-server's cache_n + prompt_n (llm/llama_server.go); nothing in the frame tells the two apart.
    const final = {
      model: 'llama3.2',
      message: { role: 'assistant', content: 'ok' },
      done: true,
      done_reason: 'stop',
      total_duration: 301000000,
      prompt_eval_count: 1530,
      prompt_eval_duration: 41700000,
      eval_count: 9,
      eval_duration: 212400000,
    };
    const raw = await startRawServer({ 'POST /api/chat': ndjson(`${JSON.stringify(final)}\n`) });
    const events = await collect(new OllamaProvider({ baseUrl: raw.url }).stream({ ...request, cacheKey: 'session' }, never()));
    await raw.close();
    expect(events.filter((event) => event.type === 'usage')).toEqual([{ type: 'usage', inputTokens: 1530, outputTokens: 9 }]);
  });

  it('lists the models from /api/tags with the trained window where Ollama gives it', async () => {
    expect(await provider.listModels(never())).toEqual([
      { id: 'llama3.2:latest', contextLength: 131072 },
      { id: 'qwen3:8b', contextLength: 40960 },
      { id: 'mystery' },
    ]);
  });
});
