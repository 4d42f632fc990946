import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ModelRequest } from '../../../src/main/agent/ports/model-provider';
import type { LocalRuntimeProvider } from '../../../src/main/runtime/local-runtime-provider';
import type { RuntimeChannel } from '../../../src/main/runtime/runtime-protocol';
import { tinyGguf } from '../../fixtures/tiny-gguf';
import { TinyModels, collect, reasoningOf, runtimeProvider, textOf } from './runtime-fixture';

/*
 * The built-in runtime on tiny models the suite writes itself: a real node-llama-cpp, in its own process, computing on
 * real (if tiny) weights. The weights make each model say a known script, so what it streams can be checked exactly.
 */

const models = new TinyModels();
let provider: LocalRuntimeProvider;
let channels: RuntimeChannel[];

const readFile = {
  name: 'read_file',
  description: 'Read a file of the workspace.',
  inputSchema: {
    type: 'object',
    properties: {
      path: { type: 'string', description: 'The file, relative to the workspace.' },
      startLine: { type: 'integer', description: 'Where to start; the beginning when absent.' },
    },
    required: ['path'],
    additionalProperties: false,
  },
};

const ask = (model: string, extra: Partial<ModelRequest> = {}): ModelRequest => ({
  model,
  system: 'You are brief.',
  messages: [{ role: 'user', content: 'Say hello.' }],
  ...extra,
});

/* A model that closes a think block its chat format never opened, as one trained to answer after a template's `<think>` does. */
const pondering = ['Pondering', ' the', ' greeting', '</think>', '\n\nHello', ' there.'];

beforeAll(() => {
  models.add('hello', { says: ['Hello', ' world', '.'], name: 'Hello model' });
  models.add('closer', { says: pondering, name: 'Closer model' });
  models.add('thinker', { says: ['<think>', ...pondering], name: 'Thinker model' });
  models.add('caller', { says: ['||call: '], name: 'Caller model' });
  models.add('endless', { says: ['tick', ' tock'], then: 0, name: 'Endless model' });
  const bytes = tinyGguf({ says: ['Hello'] });
  writeFileSync(join(models.folder, 'cut.gguf'), bytes.subarray(0, Math.floor(bytes.length / 2)));
  models.addFile('cut', join(models.folder, 'cut.gguf'));
  writeFileSync(join(models.folder, 'html.gguf'), '<!DOCTYPE html><html><body>Not found</body></html>');
  models.addFile('html', join(models.folder, 'html.gguf'));
  ({ provider, channels } = runtimeProvider(models));
});

afterAll(() => {
  provider.dispose();
  models.remove();
});

describe('the built-in runtime', () => {
  it('starts its own process and says what the machine has', async () => {
    const machine = await provider.machine();
    expect(machine.totalMemoryBytes).toBeGreaterThan(0);
    expect(machine.cpuCores).toBeGreaterThan(0);
    expect(machine.gpu).toBeNull();
    expect(channels).toHaveLength(1);
  });

  it('streams the answer as deltas, then usage, then done', async () => {
    const events = await collect(provider.stream(ask('hello'), new AbortController().signal));
    expect(textOf(events)).toBe('Hello world.');
    expect(events.filter((event) => event.type === 'text_delta').length).toBeGreaterThanOrEqual(1);
    const usage = events.find((event) => event.type === 'usage');
    expect(usage).toMatchObject({ type: 'usage', outputTokens: expect.any(Number) });
    expect(usage?.type === 'usage' && usage.inputTokens).toBeGreaterThan(5);
    expect(events.at(-1)).toEqual({ type: 'done', stopReason: 'end_turn' });
  });

  it('counts the system prompt and the conversation in the prompt it sends', async () => {
    const inputOf = async (request: ModelRequest): Promise<number> => {
      const events = await collect(provider.stream(request, new AbortController().signal));
      const usage = events.find((event) => event.type === 'usage');
      return usage?.type === 'usage' ? usage.inputTokens : 0;
    };
    const short = await inputOf(ask('hello'));
    const longer = await inputOf(ask('hello', { system: 'You are brief. '.repeat(20) }));
    const counted = await provider.countTokens('hello', 'You are brief. '.repeat(19), new AbortController().signal);
    expect(longer - short).toBeGreaterThanOrEqual(counted - 2);
  });

  it('makes a tool call through the grammar, whose arguments parse and fit the schema', async () => {
    const events = await collect(provider.stream(ask('caller', { tools: [readFile] }), new AbortController().signal));
    const started = events.find((event) => event.type === 'tool_call_started');
    const ready = events.find((event) => event.type === 'tool_call_ready');
    expect(started).toMatchObject({ name: 'read_file', index: 0 });
    expect(ready).toMatchObject({ name: 'read_file', index: 0 });
    if (ready?.type !== 'tool_call_ready' || started?.type !== 'tool_call_started') throw new Error('no call');
    expect(ready.id).toBe(started.id);
    const args = JSON.parse(ready.arguments) as Record<string, unknown>;
    expect(typeof args['path']).toBe('string');
    // The optional line is a number or left out, never a null the tool would refuse.
    expect(args['startLine'] === undefined || Number.isInteger(args['startLine'])).toBe(true);
    expect(Object.keys(args).every((key) => ['path', 'startLine'].includes(key))).toBe(true);
    const deltas = events.filter((event) => event.type === 'tool_call_arguments_delta');
    const streamed = JSON.parse(deltas.map((event) => (event.type === 'tool_call_arguments_delta' ? event.delta : '')).join('')) as object;
    expect(JSON.stringify(streamed)).toBe(JSON.stringify(args));
    expect(events.findIndex((event) => event === started)).toBeLessThan(events.findIndex((event) => event === ready));
    expect(events.at(-1)).toEqual({ type: 'done', stopReason: 'tool_use' });
  });

  it('continues after a tool result', async () => {
    const events = await collect(
      provider.stream(
        ask('hello', {
          tools: [readFile],
          messages: [
            { role: 'user', content: 'Read notes.txt' },
            { role: 'assistant', content: '', toolCalls: [{ id: 'call_1', name: 'read_file', arguments: '{"path":"notes.txt"}' }] },
            { role: 'tool', toolCallId: 'call_1', content: 'The notes say hello.' },
          ],
        }),
        new AbortController().signal,
      ),
    );
    expect(textOf(events)).toBe('Hello world.');
    expect(events.at(-1)).toEqual({ type: 'done', stopReason: 'end_turn' });
  });

  it('runs the model with the window the app chose, and refuses a prompt that does not fit with the figures', async () => {
    const long = 'word '.repeat(700);
    const small = await collect(
      provider.stream(ask('hello', { contextWindow: 512, messages: [{ role: 'user', content: long }] }), new AbortController().signal),
    );
    const last = small.at(-1);
    expect(last).toMatchObject({ type: 'error', error: { code: 'model_context_overflow' }, window: 512 });
    expect(last?.type === 'error' && last.promptTokens).toBeGreaterThan(512);
    const large = await collect(
      provider.stream(ask('hello', { contextWindow: 4096, messages: [{ role: 'user', content: long }] }), new AbortController().signal),
    );
    expect(textOf(large)).toBe('Hello world.');
  });

  it('stops within half a second, and the next request is answered', async () => {
    const controller = new AbortController();
    const events = [];
    let stoppedAt = 0;
    for await (const event of provider.stream(ask('endless', { maxTokens: 100_000 }), controller.signal)) {
      events.push(event);
      if (event.type === 'text_delta' && stoppedAt === 0) {
        stoppedAt = performance.now();
        controller.abort();
      }
    }
    expect(performance.now() - stoppedAt).toBeLessThan(500);
    expect(events.at(-1)).toMatchObject({ type: 'error', error: { code: 'cancelled' } });
    const started = performance.now();
    const next = await collect(provider.stream(ask('hello'), new AbortController().signal));
    expect(textOf(next)).toBe('Hello world.');
    // The stopped generation gave the runtime back at once rather than running to its limit.
    expect(performance.now() - started).toBeLessThan(2_000);
  });

  it('ends an answer at the token limit with max_tokens', async () => {
    const events = await collect(provider.stream(ask('endless', { maxTokens: 6 }), new AbortController().signal));
    expect(textOf(events)).toBe('tick tocktick tocktick tock');
    expect(events.at(-1)).toEqual({ type: 'done', stopReason: 'max_tokens' });
  });

  it('says clearly when a model is unknown, truncated or not a GGUF', async () => {
    const unknown = await collect(provider.stream(ask('nothing-here'), new AbortController().signal));
    expect(unknown.at(-1)).toMatchObject({
      type: 'error',
      error: { code: 'model_request_rejected', message: expect.stringContaining('nothing-here') },
    });
    for (const id of ['cut', 'html']) {
      const events = await collect(provider.stream(ask(id), new AbortController().signal));
      expect(events.at(-1)).toMatchObject({
        type: 'error',
        error: { code: 'model_file_invalid', message: expect.stringContaining(`${id}.gguf`) },
      });
    }
    // A bad file leaves the runtime able to answer with a good one.
    expect(textOf(await collect(provider.stream(ask('hello'), new AbortController().signal)))).toBe('Hello world.');
  });

  it('reports a process that dies in the middle of an answer, and starts again for the next', async () => {
    const before = channels.length;
    const events = [];
    for await (const event of provider.stream(ask('endless', { maxTokens: 100_000 }), new AbortController().signal)) {
      events.push(event);
      if (event.type === 'text_delta' && events.length === 1) channels.at(-1)?.kill();
    }
    expect(events.at(-1)).toMatchObject({ type: 'error', error: { code: 'runtime_failed', message: expect.stringContaining('stopped') } });
    expect(textOf(await collect(provider.stream(ask('hello'), new AbortController().signal)))).toBe('Hello world.');
    expect(channels.length).toBe(before + 1);
  });

  it('ends its process when idle, giving the memory back, and starts again for the next request', async () => {
    const idle = runtimeProvider(models, { idleMs: 300 });
    try {
      expect(textOf(await collect(idle.provider.stream(ask('hello'), new AbortController().signal)))).toBe('Hello world.');
      const first = idle.channels[0];
      const exited = new Promise<string>((resolve) => first?.onExit(resolve));
      expect(await exited).toMatch(/killed|exit/);
      expect(textOf(await collect(idle.provider.stream(ask('hello'), new AbortController().signal)))).toBe('Hello world.');
      expect(idle.channels).toHaveLength(2);
    } finally {
      idle.provider.dispose();
    }
  });

  it('answers a request after it was closed with an error event, not a throw', async () => {
    const closed = runtimeProvider(models);
    closed.provider.dispose();
    const events = await collect(closed.provider.stream(ask('hello'), new AbortController().signal));
    expect(events).toEqual([{ type: 'error', error: { code: 'runtime_failed', message: expect.stringContaining('closed') } }]);
    expect(closed.channels).toHaveLength(0);
  });

  it('tells apart a <think> block the model writes, from the first answer', async () => {
    const events = await collect(provider.stream(ask('thinker'), new AbortController().signal));
    expect({ reasoning: reasoningOf(events), text: textOf(events) }).toEqual({ reasoning: 'Pondering the greeting', text: 'Hello there.' });
  });

  it("reads a model's answers as beginning inside reasoning once one closed a block its chat format never opened", async () => {
    const first = await collect(provider.stream(ask('closer'), new AbortController().signal));
    // The first answer streamed as text before its `</think>` came; it is left as it was.
    expect({ reasoning: reasoningOf(first), text: textOf(first) }).toEqual({
      reasoning: '',
      text: 'Pondering the greeting</think>\n\nHello there.',
    });
    const second = await collect(provider.stream(ask('closer'), new AbortController().signal));
    expect({ reasoning: reasoningOf(second), text: textOf(second) }).toEqual({ reasoning: 'Pondering the greeting', text: 'Hello there.' });
  });

  it('lists the models with their trained windows, and reports the window it runs them with', async () => {
    const listed = await provider.listModels();
    expect(listed.map((model) => model.id)).toEqual(expect.arrayContaining(['hello', 'caller']));
    expect(listed.find((model) => model.id === 'hello')?.contextLength).toBe(4096);
    expect(await provider.window('hello')).toMatchObject({ loaded: 4096, trained: 4096 });
    expect(await provider.window('nothing-here')).toBeNull();
  });
});
