import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ModelProvider, ModelRequest, ModelStreamEvent, ToolSpec } from '../../../src/main/agent/ports/model-provider';
import { OllamaProvider } from '../../../src/main/providers/ollama-provider';
import { OpenAICompatibleProvider } from '../../../src/main/providers/openai-compatible-provider';
import { ToolProtocolProvider, type ProtocolChoice } from '../../../src/main/providers/text-tool-provider';
import { ScriptedModelServer, type ScriptedModelServerOptions } from '../../scripted-model-server';
import type { ScriptedTurn } from '../../scripted-model-server/script';

const tools: ToolSpec[] = [
  {
    name: 'write_file',
    description: 'Writes a file.',
    inputSchema: { type: 'object', properties: { path: { type: 'string' }, content: { type: 'string' } } },
  },
];
const request: ModelRequest = { model: 'text-model', system: 'Be brief.', messages: [{ role: 'user', content: 'Write a note.' }], tools };
const writeTurn: ScriptedTurn = {
  steps: [
    { kind: 'text', text: 'Writing the note.' },
    { kind: 'tool_call', id: 'x', name: 'write_file', arguments: '{"path": "note.md", "content": "line one\\nline \\"two\\""}', chunks: 6 },
  ],
};

async function collect(provider: ModelProvider, sent: ModelRequest = request): Promise<ModelStreamEvent[]> {
  const events: ModelStreamEvent[] = [];
  for await (const event of provider.stream(sent, AbortSignal.timeout(10_000))) events.push(event);
  return events;
}

const textOf = (events: readonly ModelStreamEvent[]): string =>
  events.map((event) => (event.type === 'text_delta' ? event.text : '')).join('');
const ready = (events: readonly ModelStreamEvent[]) => events.filter((event) => event.type === 'tool_call_ready');

describe('text tool calls through a real server', () => {
  let server: ScriptedModelServer;
  const refused: string[] = [];
  const start = async (options: ScriptedModelServerOptions): Promise<void> => {
    await server?.close();
    server = await ScriptedModelServer.start({ models: [{ id: 'text-model', tools: false }, { id: 'native-model' }], ...options });
  };
  const wrapped = (protocol: ProtocolChoice, inner?: ModelProvider): ModelProvider =>
    new ToolProtocolProvider(inner ?? new OpenAICompatibleProvider({ baseUrl: server.openaiBaseUrl }), {
      protocolOf: () => protocol,
      onToolsRefused: (_model, reason) => refused.push(reason),
    });

  beforeAll(() => start({}));
  beforeEach(() => {
    server.reset();
    refused.length = 0;
  });
  afterAll(() => server.close());

  it('sends no tool definitions, and reads the call the model writes, with its arguments as they stream', async () => {
    server.enqueue(writeTurn);
    const events = await collect(wrapped('text'));
    const body = server.requests[0]?.body as { tools?: unknown; messages: { role: string; content: string }[] };
    expect(body.tools).toBeUndefined();
    expect(body.messages[0]).toMatchObject({ role: 'system', content: expect.stringContaining('### write_file') });
    expect(textOf(events).trim()).toBe('Writing the note.');
    expect(ready(events)).toEqual([
      {
        type: 'tool_call_ready',
        index: 0,
        id: 'call_text_0',
        name: 'write_file',
        arguments: JSON.stringify({ path: 'note.md', content: 'line one\nline "two"' }),
      },
    ]);
    const started = events.findIndex((event) => event.type === 'tool_call_started');
    const deltas = events.filter((event) => event.type === 'tool_call_arguments_delta');
    expect(started).toBeGreaterThan(-1);
    expect(deltas.length).toBeGreaterThan(1);
    // The deltas spell the arguments as written, never running past them.
    expect(deltas.map((event) => event.delta).join('')).toBe('{"path": "note.md", "content": "line one\\nline \\"two\\""');
    expect(events.at(-1)).toEqual({ type: 'done', stopReason: 'tool_use' });
  });

  it("keeps what a llama.cpp server says of its prompt cache: the second request's prompt begins with the first's", async () => {
    await start({ personality: 'llama.cpp', llamaSlots: { total: 1 } });
    try {
      server.enqueue(writeTurn, writeTurn);
      const usageOf = (events: readonly ModelStreamEvent[]) => events.find((event) => event.type === 'usage');
      const first = usageOf(await collect(wrapped('text')));
      const longer: ModelRequest = {
        ...request,
        messages: [...request.messages, { role: 'assistant', content: 'Writing it.' }, { role: 'user', content: 'And another.' }],
      };
      const second = usageOf(await collect(wrapped('text'), longer));
      expect(first).toMatchObject({ cacheReadTokens: 0 });
      const reported = server.requests[1]?.llamaSlot?.cacheN ?? -1;
      expect(reported).toBeGreaterThan(0);
      expect(second).toMatchObject({ cacheReadTokens: reported, inputTokens: server.requests[1]?.promptTokens });
    } finally {
      await start({});
    }
  });

  it('on auto, turns to text tool calls when vLLM refuses tool definitions, and says why', async () => {
    server.enqueue(writeTurn);
    const events = await collect(wrapped('auto'));
    expect(server.requests.map((recorded) => recorded.body['tools'] === undefined)).toEqual([false, true]);
    expect(refused).toEqual([expect.stringContaining('--enable-auto-tool-choice')]);
    expect(ready(events)).toHaveLength(1);
    expect(events.some((event) => event.type === 'error')).toBe(false);
  });

  it('on auto, does the same for llama.cpp without --jinja (a 500) and Ollama without tool support (a 400)', async () => {
    await start({ personality: 'llama.cpp' });
    server.enqueue(writeTurn);
    expect(ready(await collect(wrapped('auto')))).toHaveLength(1);
    expect(refused).toEqual([expect.stringContaining('--jinja')]);
    refused.length = 0;
    server.enqueue(writeTurn);
    const ollama = wrapped('auto', new OllamaProvider({ baseUrl: server.ollamaBaseUrl }));
    expect(ready(await collect(ollama))).toHaveLength(1);
    expect(refused).toEqual([expect.stringContaining('does not support tools')]);
    await start({});
  });

  it('on auto, leaves other errors alone', async () => {
    server.enqueue({ steps: [], fault: { kind: 'status', status: 400, message: 'Bad request: messages must not be empty' } });
    const events = await collect(wrapped('auto'), { ...request, model: 'native-model' });
    expect(refused).toEqual([]);
    expect(events.at(-1)).toMatchObject({ type: 'error' });
  });

  it('asks the model to write an unreadable block again, then runs the repaired call', async () => {
    server.enqueue(
      { steps: [{ kind: 'text', text: '<tool_call>\n{"name": "write_file", "arguments": {"path": "a.md", }}\n</tool_call>' }] },
      writeTurn,
    );
    const events = await collect(wrapped('text'));
    expect(events.filter((event) => event.type === 'retry_scheduled')).toEqual([
      expect.objectContaining({ attempt: 1, error: expect.objectContaining({ code: 'model_bad_response' }) }),
    ]);
    const repair = server.requests[1]?.body as { messages: { role: string; content: string }[] };
    expect(repair.messages.at(-2)).toMatchObject({ role: 'assistant', content: expect.stringContaining('"path": "a.md", }') });
    expect(repair.messages.at(-1)).toMatchObject({ role: 'user', content: expect.stringMatching(/block 1: the block is not valid JSON/) });
    expect(ready(events)).toHaveLength(1);
    expect(events.at(-1)).toEqual({ type: 'done', stopReason: 'tool_use' });
  });

  it('fails with a clear error after two repairs, and no call is ready', async () => {
    const broken: ScriptedTurn = { steps: [{ kind: 'text', text: 'Here: <tool_call>{"name": "write_file", "arguments": {' }] };
    server.enqueue(broken, broken, broken);
    const events = await collect(wrapped('text'));
    expect(server.requests).toHaveLength(3);
    expect(ready(events)).toEqual([]);
    expect(events.at(-1)).toMatchObject({
      type: 'error',
      error: { code: 'model_bad_response', message: expect.stringMatching(/after 2 requests.*never closed/) },
    });
  });

  it('passes a call to a tool that does not exist on to the runtime, which tells the model', async () => {
    server.enqueue({ steps: [{ kind: 'tool_call', id: 'x', name: 'launch_rocket', arguments: '{}' }] });
    expect(ready(await collect(wrapped('text')))).toMatchObject([{ name: 'launch_rocket', arguments: '{}' }]);
  });

  it('leaves a request without tools, and a native model, as they are', async () => {
    server.enqueue(writeTurn, { steps: [{ kind: 'text', text: 'Hello.' }] });
    const events = await collect(wrapped('native'), { ...request, model: 'native-model' });
    expect(server.requests[0]?.body['tools']).toBeDefined();
    expect(ready(events)).toMatchObject([{ id: 'x', name: 'write_file' }]);
    const { tools: _tools, ...plain } = request;
    expect(textOf(await collect(wrapped('text'), plain))).toBe('Hello.');
    expect((server.requests[1]?.body['messages'] as unknown[])[0]).toEqual({ role: 'system', content: 'Be brief.' });
  });
});
