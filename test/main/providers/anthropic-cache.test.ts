import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { costOf } from '../../../src/main/agent/ports/accounting';
import type { ChatMessage, ModelRequest, ModelStreamEvent, ToolSpec } from '../../../src/main/agent/ports/model-provider';
import { AnthropicProvider } from '../../../src/main/providers/anthropic-provider';
import { ScriptedModelServer, signatureOf, textTurn } from '../../scripted-model-server';
import { tinyPng } from '../../tiny-png';
import { replay, startRawServer, type RawServer } from './raw-server';

async function collect(stream: AsyncIterable<ModelStreamEvent>): Promise<ModelStreamEvent[]> {
  const events: ModelStreamEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

type Sent = Record<string, unknown>;

/** Where a request body has breakpoints, in the order the API reads the prompt: `tools.1`, `system.0`, `messages.2.content.11`. */
function breakpointsOf(body: Sent): string[] {
  const places: string[] = [];
  const visit = (value: unknown, path: string): void => {
    if (Array.isArray(value)) value.forEach((item, at) => visit(item, `${path}.${at}`));
    else if (value !== null && typeof value === 'object')
      for (const [key, field] of Object.entries(value)) {
        if (key === 'cache_control') {
          expect(field).toEqual({ type: 'ephemeral' });
          places.push(path);
        } else visit(field, `${path}.${key}`);
      }
  };
  const order = ['tools', 'system', 'messages'];
  for (const key of [...order, ...Object.keys(body).filter((key) => !order.includes(key))]) visit(body[key], key);
  return places;
}

const tools: ToolSpec[] = [
  { name: 'read_note', description: 'Reads a note.', inputSchema: { properties: { name: { type: 'string' } }, required: ['name'] } },
  { name: 'list_notes', description: 'Lists the notes.', inputSchema: { properties: {} } },
];
const system = 'You keep notes for the person. Read a note before you answer about it.';

const usageOf = (events: readonly ModelStreamEvent[]): ModelStreamEvent[] => events.filter((event) => event.type === 'usage');

/** A conversation whose last answer made `calls` calls at once, with their results. */
function afterCalls(calls: number): ChatMessage[] {
  const ids = Array.from({ length: calls }, (_, at) => `toolu_${at}`);
  return [
    { role: 'user', content: 'What do my notes say?' },
    { role: 'assistant', content: '', toolCalls: ids.map((id, at) => ({ id, name: 'read_note', arguments: `{"name":"note ${at}"}` })) },
    ...ids.map((id, at): ChatMessage => ({ role: 'tool', toolCallId: id, content: `The text of note ${at}.` })),
  ];
}

describe('the Anthropic prompt cache, through the SDK against the scripted server', () => {
  let server: ScriptedModelServer;
  let provider: AnthropicProvider;
  beforeAll(async () => {
    server = await ScriptedModelServer.start();
    provider = new AnthropicProvider({ baseUrl: server.anthropicBaseUrl, apiKey: 'test-key' });
  });
  afterAll(async () => server.close());
  beforeEach(() => server.reset());

  const stream = (request: Omit<ModelRequest, 'model'>): Promise<ModelStreamEvent[]> =>
    collect(provider.stream({ model: 'scripted-model', ...request }, new AbortController().signal));
  const sent = (index: number): Sent => server.requests[index]?.body ?? {};

  it('asks to cache the tools, the system prompt and the whole conversation, and nothing else', async () => {
    server.enqueue(textTurn('Nothing yet.'));
    const events = await stream({ system, tools, messages: [{ role: 'user', content: 'What do my notes say?' }] });
    expect(events.at(-1)).toEqual({ type: 'done', stopReason: 'end_turn' });
    expect(breakpointsOf(sent(0))).toEqual(['tools.1', 'system.0', 'messages.0.content.0']);
    expect(sent(0)['system']).toEqual([{ type: 'text', text: system, cache_control: { type: 'ephemeral' } }]);
  });

  it('marks where the step before ended too, and never more than four places', async () => {
    server.enqueue(textTurn('Twelve notes.'));
    const events = await stream({ system, tools, messages: afterCalls(12) });
    expect(events.at(-1)).toEqual({ type: 'done', stopReason: 'end_turn' });
    // The twelve results merge into one user message: the conversation is question, calls, results.
    expect(breakpointsOf(sent(0))).toEqual(['tools.1', 'system.0', 'messages.0.content.0', 'messages.2.content.11']);
  });

  it('leaves out the system prompt when there is none, and the tools when there are none', async () => {
    server.enqueue(textTurn('Hello.'));
    const events = await stream({ system: '', messages: [{ role: 'user', content: 'hello' }] });
    expect(events.at(-1)).toEqual({ type: 'done', stopReason: 'end_turn' });
    expect(sent(0)).not.toHaveProperty('system');
    expect(breakpointsOf(sent(0))).toEqual(['messages.0.content.0']);
  });

  it('marks the image when the text beside it is empty, which the API would refuse', async () => {
    server.enqueue(textTurn('A small square.'));
    const image = { path: 'square.png', mediaType: 'image/png' as const, data: tinyPng.toString('base64') };
    const events = await stream({ messages: [{ role: 'user', content: '', images: [image] }] });
    expect(events.at(-1)).toEqual({ type: 'done', stopReason: 'end_turn' });
    expect(breakpointsOf(sent(0))).toEqual(['messages.0.content.0']);
  });

  it('never marks a thinking block, so a tool loop with thinking goes on', async () => {
    const thought = 'Read the note first.';
    server.enqueue(textTurn('It says: buy milk.'));
    const history: ChatMessage[] = [
      { role: 'user', content: 'What does the note say?' },
      {
        role: 'assistant',
        content: '',
        toolCalls: [{ id: 'toolu_1', name: 'read_note', arguments: '{"name":"todo"}' }],
        thinking: {
          providerId: 'claude',
          model: 'scripted-model',
          blocks: [{ type: 'thinking', thinking: thought, signature: signatureOf(thought) }],
        },
      },
      { role: 'tool', toolCallId: 'toolu_1', content: 'buy milk' },
    ];
    const events = await stream({ tools, messages: history, maxTokens: 6144, thinking: { budgetTokens: 2048 } });
    expect(events.at(-1)).toEqual({ type: 'done', stopReason: 'end_turn' });
    expect(breakpointsOf(sent(0))).toEqual(['tools.1', 'messages.0.content.0', 'messages.2.content.0']);
  });
});

describe('Anthropic usage with the prompt cache', () => {
  let server: ScriptedModelServer;
  let provider: AnthropicProvider;
  beforeAll(async () => {
    server = await ScriptedModelServer.start();
    provider = new AnthropicProvider({ baseUrl: server.anthropicBaseUrl, apiKey: 'test-key' });
  });
  afterAll(async () => server.close());
  beforeEach(() => server.reset());

  const stream = (messages: ChatMessage[]): Promise<ModelStreamEvent[]> =>
    collect(provider.stream({ model: 'claude-sonnet-4-5', system, tools, messages }, new AbortController().signal));

  it('reads the first step’s prompt from the cache at the second, and counts the whole prompt as its input', async () => {
    server.enqueue({ steps: [{ kind: 'tool_call', id: 'toolu_1', name: 'read_note', arguments: '{"name":"todo"}' }] });
    const question: ChatMessage = { role: 'user', content: 'What does the note called todo say?' };
    const first = await stream([question]);
    const firstPrompt = server.requests[0]?.promptTokens ?? 0;
    expect(firstPrompt).toBeGreaterThan(50);
    // Nothing was cached yet: the whole prompt is written, up to the breakpoint on the question.
    expect(usageOf(first)).toEqual([
      { type: 'usage', inputTokens: firstPrompt, outputTokens: expect.any(Number), cacheReadTokens: 0, cacheWriteTokens: firstPrompt },
    ]);

    server.enqueue(textTurn('It says: buy milk, and call the plumber about the kitchen sink.'));
    const call = first.find((event) => event.type === 'tool_call_ready');
    if (call?.type !== 'tool_call_ready') throw new Error('the first step made no call');
    const second = await stream([
      question,
      { role: 'assistant', content: '', toolCalls: [{ id: call.id, name: call.name, arguments: call.arguments }] },
      { role: 'tool', toolCallId: call.id, content: 'buy milk, and call the plumber about the kitchen sink' },
    ]);
    const secondPrompt = server.requests[1]?.promptTokens ?? 0;
    // The first prompt is read from the cache; what the step added is written; the input is still the whole prompt.
    expect(usageOf(second)).toEqual([
      {
        type: 'usage',
        inputTokens: secondPrompt,
        outputTokens: expect.any(Number),
        cacheReadTokens: firstPrompt,
        cacheWriteTokens: secondPrompt - firstPrompt,
      },
    ]);
    // Priced as Anthropic prices Sonnet ($3 in, $15 out per million): the part read at a tenth, the part written at 1.25 times.
    const usage = usageOf(second)[0];
    if (usage?.type !== 'usage') throw new Error('no usage');
    const priced = (input: number): number => (input + usage.outputTokens * 15) / 1_000_000;
    const cost = costOf('anthropic', 'https://api.anthropic.com', 'claude-sonnet-4-5', usage);
    expect(cost).toBeCloseTo(priced(firstPrompt * 0.3 + (secondPrompt - firstPrompt) * 3.75), 12);
    expect(cost).toBeLessThan(priced(secondPrompt * 3));
  });

  it('reads the step before from the cache even when the latest answer made a dozen calls at once', async () => {
    server.enqueue(textTurn('Noted.'));
    await stream([{ role: 'user', content: 'What do my notes say?' }]);
    const firstPrompt = server.requests[0]?.promptTokens ?? 0;
    server.enqueue(textTurn('Twelve notes.'));
    const usage = usageOf(await stream(afterCalls(12)))[0];
    // Twenty-four blocks were added: more than the API looks back over from the last breakpoint alone.
    expect(usage).toMatchObject({ cacheReadTokens: firstPrompt, inputTokens: server.requests[1]?.promptTokens });
  });
});

/** An Anthropic stream of one short answer, with these usage figures at its start and its end. */
function answerWithUsage(start: Record<string, unknown>, end: Record<string, unknown>): Uint8Array {
  const frames: Array<[string, unknown]> = [
    [
      'message_start',
      {
        type: 'message_start',
        message: {
          id: 'msg_1',
          type: 'message',
          role: 'assistant',
          content: [],
          model: 'claude-sonnet-4-5',
          stop_reason: null,
          usage: start,
        },
      },
    ],
    ['content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }],
    ['content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Done.' } }],
    ['content_block_stop', { type: 'content_block_stop', index: 0 }],
    ['message_delta', { type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: end }],
    ['message_stop', { type: 'message_stop' }],
  ];
  return new TextEncoder().encode(frames.map(([event, data]) => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`).join(''));
}

describe('Anthropic usage given at the start and again at the end of a stream', () => {
  let raw: RawServer | null = null;
  afterAll(async () => raw?.close());

  async function usageFor(start: Record<string, unknown>, end: Record<string, unknown>): Promise<ModelStreamEvent[]> {
    await raw?.close();
    raw = await startRawServer({ 'POST /v1/messages': replay(answerWithUsage(start, end), 'text/event-stream') });
    const provider = new AnthropicProvider({ baseUrl: raw.url, apiKey: 'test-key' });
    const request = { model: 'claude-sonnet-4-5', messages: [{ role: 'user' as const, content: 'hello' }] };
    return usageOf(await collect(provider.stream(request, new AbortController().signal)));
  }

  it('takes the prompt’s count from message_delta when it comes there too, as Ollama’s Anthropic API gives its final one', async () => {
    expect(await usageFor({ input_tokens: 398, output_tokens: 1 }, { input_tokens: 412, output_tokens: 9 })).toEqual([
      { type: 'usage', inputTokens: 412, outputTokens: 9 },
    ]);
  });

  it('takes the cache’s figures from message_delta too, the last given winning', async () => {
    const start = { input_tokens: 20, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 1 };
    const end = { input_tokens: 12, cache_creation_input_tokens: 300, cache_read_input_tokens: 5000, output_tokens: 40 };
    expect(await usageFor(start, end)).toEqual([
      { type: 'usage', inputTokens: 5312, outputTokens: 40, cacheReadTokens: 5000, cacheWriteTokens: 300 },
    ]);
  });

  it('keeps a figure message_start gave when message_delta leaves it out or gives null', async () => {
    const start = { input_tokens: 12, cache_creation_input_tokens: 300, cache_read_input_tokens: 5000, output_tokens: 1 };
    expect(await usageFor(start, { input_tokens: null, cache_read_input_tokens: null, output_tokens: 40 })).toEqual([
      { type: 'usage', inputTokens: 5312, outputTokens: 40, cacheReadTokens: 5000, cacheWriteTokens: 300 },
    ]);
  });
});
