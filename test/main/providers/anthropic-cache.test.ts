import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ChatMessage, ModelRequest, ModelStreamEvent, ToolSpec } from '../../../src/main/agent/ports/model-provider';
import { AnthropicProvider } from '../../../src/main/providers/anthropic-provider';
import { ScriptedModelServer, signatureOf, textTurn } from '../../scripted-model-server';
import { tinyPng } from '../../tiny-png';

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
