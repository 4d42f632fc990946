import { afterEach, describe, expect, it } from 'vitest';
import type { ModelRequest, ModelStreamEvent } from '../../../src/main/agent/ports/model-provider';
import { OpenAICompatibleProvider } from '../../../src/main/providers/openai-compatible-provider';
import { ScriptedModelServer, textTurn, type ScriptedModelServerOptions } from '../../scripted-model-server';
import { hang, json, startRawServer, type RawRoute, type RawServer } from './raw-server';

/*
 * The OpenAI-compatible provider and llama-server's prompt cache, over real HTTP: the scripted server's llama.cpp
 * personality keeps slots as llama-server does and says per request which slot it used and what it reused.
 */

let scripted: ScriptedModelServer | null = null;
let raw: RawServer | null = null;

afterEach(async () => {
  await scripted?.close();
  await raw?.close();
  scripted = null;
  raw = null;
});

async function llamaServer(options: ScriptedModelServerOptions = {}): Promise<ScriptedModelServer> {
  scripted = await ScriptedModelServer.start({ personality: 'llama.cpp', fallback: () => textTurn('Done.'), ...options });
  return scripted;
}

async function collect(stream: AsyncIterable<ModelStreamEvent>): Promise<ModelStreamEvent[]> {
  const events: ModelStreamEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

/** The usage the provider reported for one request, which must have ended well. */
async function usageOf(provider: OpenAICompatibleProvider, request: ModelRequest) {
  const events = await collect(provider.stream(request, new AbortController().signal));
  expect(events.at(-1)).toEqual({ type: 'done', stopReason: 'end_turn' });
  const usage = events.find((event) => event.type === 'usage');
  if (usage?.type !== 'usage') throw new Error('no usage reported');
  return usage;
}

/** The app's system prompt is long and the same for every session: what makes llama-server mix their slots up. */
const system = 'You are the coding agent of this workspace. Read before you write, and run the tests after every edit. '.repeat(8);

/** A request of a line (a session, or a side line of one) with its turns so far. */
function line(cacheKey: string | undefined, ...turns: string[]): ModelRequest {
  return {
    model: 'scripted-model',
    system,
    messages: turns.map((content, index) => (index % 2 === 0 ? { role: 'user', content } : { role: 'assistant', content })),
    ...(cacheKey === undefined ? {} : { cacheKey }),
  };
}

const sent = (server: ScriptedModelServer) => server.requests.map((request) => request.body);

describe('the OpenAI-compatible provider and llama-server’s slots', () => {
  it('keeps two sessions in their own slots, so each second request reads only what is new', async () => {
    const server = await llamaServer({ llamaSlots: { total: 2 } });
    const provider = new OpenAICompatibleProvider({ baseUrl: server.openaiBaseUrl });
    await usageOf(provider, line('session-a', 'Refactor the parser.'));
    await usageOf(provider, line('session-b', 'Write the changelog.'));
    const a = await usageOf(provider, line('session-a', 'Refactor the parser.', 'Done.', 'Now add tests.'));
    const b = await usageOf(provider, line('session-b', 'Write the changelog.', 'Done.', 'Shorten it.'));
    const [a1, b1, a2, b2] = server.requests;
    expect(server.requests.map((request) => request.llamaSlot?.slot)).toEqual([0, 1, 0, 1]);
    expect(a).toEqual({
      type: 'usage',
      inputTokens: a2?.promptTokens,
      outputTokens: expect.any(Number),
      cacheReadTokens: a1?.promptTokens,
    });
    expect(b).toEqual({
      type: 'usage',
      inputTokens: b2?.promptTokens,
      outputTokens: expect.any(Number),
      cacheReadTokens: b1?.promptTokens,
    });
  });

  it('sends a side line of a session to the other slot, so the session’s prompt stays cached', async () => {
    const server = await llamaServer({ llamaSlots: { total: 2 } });
    const provider = new OpenAICompatibleProvider({ baseUrl: server.openaiBaseUrl });
    await usageOf(provider, line('session', 'Refactor the parser.'));
    await usageOf(provider, line('session', 'Refactor the parser.', 'Reading it.', 'Go on.'));
    await usageOf(provider, line('session/summaries', 'Summarize: the parser is being refactored.'));
    const next = await usageOf(provider, line('session', 'Refactor the parser.', 'Reading it.', 'Go on.', 'Edited.', 'Test it.'));
    const [, second, summary] = server.requests;
    expect(server.requests.map((request) => request.llamaSlot?.slot)).toEqual([0, 0, 1, 0]);
    expect(summary?.body['id_slot']).toBe(1);
    expect(next.cacheReadTokens).toBe(second?.promptTokens);
  });

  it('sends a one-slot server cache_prompt and no id_slot, and still reports what it reused', async () => {
    const server = await llamaServer();
    const provider = new OpenAICompatibleProvider({ baseUrl: server.openaiBaseUrl });
    await usageOf(provider, line('session', 'Hello.'));
    const second = await usageOf(provider, line('session', 'Hello.', 'Hi.', 'List the files.'));
    expect(sent(server).every((body) => body['cache_prompt'] === true && !('id_slot' in body))).toBe(true);
    expect(second.cacheReadTokens).toBe(server.requests[0]?.promptTokens);
  });

  it('pins no request that names no line', async () => {
    const server = await llamaServer({ llamaSlots: { total: 2 } });
    const provider = new OpenAICompatibleProvider({ baseUrl: server.openaiBaseUrl });
    await usageOf(provider, line(undefined, 'Hello.'));
    expect(sent(server)[0]).toMatchObject({ cache_prompt: true });
    expect(sent(server)[0]).not.toHaveProperty('id_slot');
  });

  it('works with a server that ignores id_slot, and the figures say the sessions evicted each other', async () => {
    const server = await llamaServer({ llamaSlots: { total: 2, idSlot: 'ignore' } });
    const provider = new OpenAICompatibleProvider({ baseUrl: server.openaiBaseUrl });
    await usageOf(provider, line('session-a', 'Refactor the parser.'));
    await usageOf(provider, line('session-b', 'Write the changelog.'));
    const a = await usageOf(provider, line('session-a', 'Refactor the parser.', 'Done.', 'Now add tests.'));
    const [a1, , a2] = server.requests;
    expect(sent(server).map((body) => body['id_slot'])).toEqual([0, 1, 0]);
    expect(a.inputTokens).toBe(a2?.promptTokens);
    expect(a.cacheReadTokens).toBe(a2?.llamaSlot?.cacheN);
    expect(a.cacheReadTokens).toBeLessThan(a1?.promptTokens ?? 0);
  });

  it('sends the request again without the cache fields when the server refuses id_slot, and never sends them again', async () => {
    const server = await llamaServer({ llamaSlots: { total: 2, idSlot: 'reject' } });
    const provider = new OpenAICompatibleProvider({ baseUrl: server.openaiBaseUrl });
    const first = await usageOf(provider, line('session', 'Hello.'));
    await usageOf(provider, line('session', 'Hello.', 'Hi.', 'Go on.'));
    expect(sent(server).map((body) => [body['id_slot'], body['cache_prompt']])).toEqual([
      [0, true],
      [undefined, undefined],
      [undefined, undefined],
    ]);
    expect(first.inputTokens).toBe(server.requests[1]?.promptTokens);
  });

  it('sends no cache field to a server that is not llama-server', async () => {
    scripted = await ScriptedModelServer.start({ personality: 'vllm', fallback: () => textTurn('Done.') });
    const provider = new OpenAICompatibleProvider({ baseUrl: scripted.openaiBaseUrl });
    const usage = await usageOf(provider, line('session', 'Hello.'));
    expect(sent(scripted)[0]).not.toHaveProperty('cache_prompt');
    expect(sent(scripted)[0]).not.toHaveProperty('id_slot');
    expect(usage).not.toHaveProperty('cacheReadTokens');
  });
});

/** A llama-server stand-in that counts its `/props` requests and keeps the chat bodies. */
async function countingServer(
  props: RawRoute,
): Promise<{ server: RawServer; propsAsked: () => number; bodies: Record<string, unknown>[] }> {
  let asked = 0;
  const bodies: Record<string, unknown>[] = [];
  const frames = [
    { choices: [{ index: 0, delta: { role: 'assistant', content: 'ok' }, finish_reason: null }] },
    { choices: [{ index: 0, delta: {}, finish_reason: 'stop' }], timings: { cache_n: 0, prompt_n: 20, predicted_n: 1 } },
  ];
  raw = await startRawServer({
    'GET /props': (request, response) => {
      asked += 1;
      props(request, response);
    },
    'POST /v1/chat/completions': (request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        bodies.push(JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>);
        response.writeHead(200, { 'content-type': 'text/event-stream' });
        response.end(`${frames.map((frame) => `data: ${JSON.stringify(frame)}\n\n`).join('')}data: [DONE]\n\n`);
      });
    },
  });
  return { server: raw, propsAsked: () => asked, bodies };
}

const llamaProps = json({ default_generation_settings: { n_ctx: 8192 }, total_slots: 2 });

describe('what the provider learns of a server’s slots', () => {
  it('asks /props once per server', async () => {
    const { server, propsAsked, bodies } = await countingServer(llamaProps);
    const provider = new OpenAICompatibleProvider({ baseUrl: `${server.url}/v1` });
    await usageOf(provider, line('a', 'one'));
    await usageOf(provider, line('b', 'two'));
    await usageOf(provider, line('a', 'three'));
    expect(propsAsked()).toBe(1);
    expect(bodies.map((body) => body['id_slot'])).toEqual([0, 1, 0]);
  });

  it('sends no cache field when /props does not answer in time, and does not wait for it again', async () => {
    const { server, propsAsked, bodies } = await countingServer(hang);
    const provider = new OpenAICompatibleProvider({ baseUrl: `${server.url}/v1`, probeTimeoutMs: 100 });
    await usageOf(provider, line('a', 'one'));
    await usageOf(provider, line('a', 'two'));
    expect(propsAsked()).toBe(1);
    expect(bodies.every((body) => !('id_slot' in body) && !('cache_prompt' in body))).toBe(true);
  });

  it('asks /props again after the server could not be reached: it may be back with other slots', async () => {
    const { server, propsAsked } = await countingServer(llamaProps);
    let failNext = false;
    const flaky: typeof fetch = async (input, init) => {
      if (failNext && String(input).endsWith('/chat/completions')) {
        failNext = false;
        throw new TypeError('fetch failed', { cause: Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }) });
      }
      return fetch(input, init);
    };
    const provider = new OpenAICompatibleProvider({ baseUrl: `${server.url}/v1`, fetch: flaky });
    await usageOf(provider, line('a', 'one'));
    failNext = true;
    const failed = await collect(provider.stream(line('a', 'two'), new AbortController().signal));
    expect(failed.at(-1)).toMatchObject({ type: 'error', error: { code: 'model_connection_failed' } });
    await usageOf(provider, line('a', 'three'));
    expect(propsAsked()).toBe(2);
  });
});
