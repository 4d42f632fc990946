import { afterEach, describe, expect, it } from 'vitest';
import { ScriptedModelServer, promptPieces, textTurn, type ScriptedModelServerOptions } from '.';
import { promptTokensOf } from './overflow';

let server: ScriptedModelServer | null = null;

async function start(options: ScriptedModelServerOptions = {}): Promise<ScriptedModelServer> {
  server = await ScriptedModelServer.start({ personality: 'llama.cpp', fallback: () => textTurn('ok'), ...options });
  return server;
}

afterEach(async () => {
  await server?.close();
  server = null;
});

type Message = { role: string; content: string };

const system: Message = { role: 'system', content: 'You are a careful coding agent. '.repeat(20) };
const conversation = (...turns: string[]): Message[] => [
  system,
  ...turns.map((content, index): Message => ({ role: index % 2 === 0 ? 'user' : 'assistant', content })),
];

/** The data of every chunk of a streamed answer. */
async function chat(url: string, messages: readonly Message[], extra: Record<string, unknown> = {}): Promise<Record<string, unknown>[]> {
  const response = await fetch(`${url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'scripted-model', stream: true, messages, ...extra }),
  });
  const text = await response.text();
  if (response.status !== 200) throw new Error(`${response.status}: ${text}`);
  return text
    .split('\n\n')
    .filter((frame) => frame.startsWith('data: {'))
    .map((frame) => JSON.parse(frame.slice('data: '.length)) as Record<string, unknown>);
}

const timingsOf = (chunks: readonly Record<string, unknown>[]) => chunks.at(-1)?.['timings'] as { cache_n: number; prompt_n: number };
const tokensOf = (messages: readonly Message[]): number => promptTokensOf(false, { messages });

describe('the scripted llama.cpp server’s slots', () => {
  it('reports the configured number of slots in /props, one by default', async () => {
    const one = await start();
    expect(await (await fetch(`${one.url}/props`)).json()).toMatchObject({ total_slots: 1 });
    await one.close();
    const four = await start({ llamaSlots: { total: 4 } });
    expect(await (await fetch(`${four.url}/props`)).json()).toMatchObject({ total_slots: 4 });
  });

  it('renders a prompt into exactly as many tokens as it counts', () => {
    const body = {
      messages: [
        system,
        { role: 'user', content: [{ type: 'text', text: 'Look at this 12345 picture!' }] },
        { role: 'assistant', content: '', tool_calls: [{ id: 'c1', type: 'function', function: { name: 'read', arguments: '{"p":1}' } }] },
        { role: 'tool', tool_call_id: 'c1', content: 'file body' },
      ],
      tools: [{ type: 'function', function: { name: 'read', parameters: { type: 'object' } } }],
    };
    expect(promptPieces(body)).toHaveLength(promptTokensOf(false, body));
  });

  it('reports the last prompt of the slot as cached when the next one continues it, on the last chunk with its usage', async () => {
    const scripted = await start();
    const first = conversation('Fix the failing test.');
    const second = conversation('Fix the failing test.', 'Done: the assertion was off by one.', 'Now run the linter.');
    const before = await chat(scripted.url, first, { stream_options: { include_usage: true } });
    expect(timingsOf(before)).toMatchObject({ cache_n: 0, prompt_n: tokensOf(first) });
    const after = await chat(scripted.url, second, { stream_options: { include_usage: true } });
    const last = after.at(-1);
    expect(last?.['choices']).toEqual([]);
    expect(last?.['timings']).toMatchObject({ cache_n: tokensOf(first), prompt_n: tokensOf(second) - tokensOf(first) });
    expect(last?.['usage']).toMatchObject({ prompt_tokens: tokensOf(second), prompt_tokens_details: { cached_tokens: tokensOf(first) } });
    expect(scripted.requests.map((request) => request.llamaSlot)).toEqual([
      { slot: 0, pinned: false, cacheN: 0, promptN: tokensOf(first) },
      { slot: 0, pinned: false, cacheN: tokensOf(first), promptN: tokensOf(second) - tokensOf(first) },
    ]);
  });

  it('puts the timings on the finish chunk when no usage was asked for', async () => {
    const scripted = await start();
    const chunks = await chat(scripted.url, conversation('Hello'));
    expect(chunks.at(-1)).toMatchObject({ choices: [{ finish_reason: 'stop' }], timings: { cache_n: 0 } });
    expect(chunks.some((chunk) => 'usage' in chunk)).toBe(false);
  });

  it('reads the last token of a prompt that is all cached again, as llama-server does', async () => {
    const scripted = await start();
    const messages = conversation('Same question twice.');
    await chat(scripted.url, messages);
    expect(timingsOf(await chat(scripted.url, messages))).toMatchObject({ cache_n: tokensOf(messages) - 1, prompt_n: 1 });
  });

  it('reuses nothing for a request that sends cache_prompt: false', async () => {
    const scripted = await start();
    await chat(scripted.url, conversation('One'));
    const chunks = await chat(scripted.url, conversation('One', 'Two', 'Three'), { cache_prompt: false });
    expect(timingsOf(chunks)).toMatchObject({ cache_n: 0, prompt_n: tokensOf(conversation('One', 'Two', 'Three')) });
  });

  it('keeps each pinned line in its slot, so neither evicts the other', async () => {
    const scripted = await start({ llamaSlots: { total: 2 } });
    const a = (...turns: string[]) => conversation('Session A: refactor the parser.', ...turns);
    const b = (...turns: string[]) => conversation('Session B: write the changelog.', ...turns);
    await chat(scripted.url, a(), { id_slot: 0 });
    await chat(scripted.url, b(), { id_slot: 1 });
    await chat(scripted.url, a('Parser refactored.', 'Add tests.'), { id_slot: 0 });
    await chat(scripted.url, b('Changelog written.', 'Shorten it.'), { id_slot: 1 });
    expect(scripted.requests.map((request) => request.llamaSlot)).toEqual([
      { slot: 0, pinned: true, cacheN: 0, promptN: tokensOf(a()) },
      { slot: 1, pinned: true, cacheN: 0, promptN: tokensOf(b()) },
      { slot: 0, pinned: true, cacheN: tokensOf(a()), promptN: tokensOf(a('Parser refactored.', 'Add tests.')) - tokensOf(a()) },
      { slot: 1, pinned: true, cacheN: tokensOf(b()), promptN: tokensOf(b('Changelog written.', 'Shorten it.')) - tokensOf(b()) },
    ]);
  });

  it('sends an unpinned prompt that shares the system prompt to the slot holding it, evicting that line', async () => {
    const scripted = await start({ llamaSlots: { total: 2 } });
    await chat(scripted.url, conversation('Session A: refactor the parser.'));
    await chat(scripted.url, conversation('Session B: write the changelog.'));
    await chat(scripted.url, conversation('Session A: refactor the parser.', 'Done.', 'Add tests.'));
    const [a, b, again] = scripted.requests.map((request) => request.llamaSlot);
    // The first takes the highest of the unused slots; the second shares more than 10 % of its prompt with it.
    expect([a?.slot, b?.slot, again?.slot]).toEqual([1, 1, 1]);
    // So A's next request finds B's prompt in the slot and reuses only what the two share.
    const held = promptPieces({ messages: conversation('Session B: write the changelog.') });
    const asked = promptPieces({ messages: conversation('Session A: refactor the parser.', 'Done.', 'Add tests.') });
    const shared = held.findIndex((piece, at) => asked[at] !== piece);
    expect(again?.cacheN).toBe(shared);
    expect(shared).toBeLessThan(tokensOf(conversation('Session A: refactor the parser.')));
  });

  it('takes the free slot used longest ago when no slot holds enough of the prompt', async () => {
    const scripted = await start({ llamaSlots: { total: 2, promptSimilarity: 0 } });
    await chat(scripted.url, conversation('one'));
    await chat(scripted.url, conversation('two'));
    await chat(scripted.url, conversation('three'));
    expect(scripted.requests.map((request) => request.llamaSlot?.slot)).toEqual([1, 0, 1]);
  });

  it('wraps an id_slot past the last slot around, as current llama-server builds do', async () => {
    const scripted = await start({ llamaSlots: { total: 2 } });
    await chat(scripted.url, conversation('hi'), { id_slot: 3 });
    expect(scripted.requests[0]?.llamaSlot).toMatchObject({ slot: 1, pinned: true });
  });

  it('makes a request pinned to a busy slot wait for it, and lets an unpinned one take the other slot', async () => {
    const scripted = await start({ llamaSlots: { total: 2 }, fallback: () => textTurn('slow answer', { chunkSize: 1, chunkDelayMs: 15 }) });
    const finished: string[] = [];
    const slow = chat(scripted.url, conversation('slow'), { id_slot: 0 }).then(() => finished.push('slow'));
    await new Promise((resolve) => setTimeout(resolve, 30));
    scripted.enqueue(textTurn('quick'), textTurn('quick'));
    const pinned = chat(scripted.url, conversation('pinned'), { id_slot: 0 }).then(() => finished.push('pinned'));
    const free = chat(scripted.url, conversation('free')).then(() => finished.push('free'));
    await Promise.all([slow, pinned, free]);
    expect(finished).toEqual(['free', 'slow', 'pinned']);
    expect(scripted.requests.map((request) => request.llamaSlot?.slot)).toEqual([0, 0, 1]);
  });

  it('ignores id_slot when configured as a server without it', async () => {
    const scripted = await start({ llamaSlots: { total: 2, idSlot: 'ignore' } });
    await chat(scripted.url, conversation('hi'), { id_slot: 0 });
    expect(scripted.requests[0]?.llamaSlot).toMatchObject({ slot: 1, pinned: false });
  });

  it('refuses id_slot with a 400 naming it when configured as a strict server', async () => {
    const scripted = await start({ llamaSlots: { total: 2, idSlot: 'reject' } });
    const response = await fetch(`${scripted.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'scripted-model', stream: true, messages: conversation('hi'), id_slot: 0 }),
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error: { message: expect.stringContaining('id_slot') } });
    expect((await chat(scripted.url, conversation('hi'))).length).toBeGreaterThan(0);
  });

  it('forgets every slot’s prompt on reset', async () => {
    const scripted = await start();
    await chat(scripted.url, conversation('hi'));
    scripted.reset();
    expect(timingsOf(await chat(scripted.url, conversation('hi')))).toMatchObject({ cache_n: 0 });
  });
});
