import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { ModelProvider, ModelStreamEvent } from '../../../src/main/agent/ports/model-provider';
import { AnthropicProvider } from '../../../src/main/providers/anthropic-provider';
import { OllamaProvider } from '../../../src/main/providers/ollama-provider';
import { OpenAICompatibleProvider } from '../../../src/main/providers/openai-compatible-provider';
import { awkwardPieces, json, replay, startRawServer, type RawRoute, type RawServer } from './raw-server';

/*
 * Streams real servers send, replayed byte for byte from a real HTTP server on 127.0.0.1 through the real providers.
 * Each fixture under test/fixtures/streams/<server>/ has a sidecar <name>.json saying where the stream comes from, what
 * quirk it shows, and what the app must make of it.
 */

const root = join(__dirname, '../../fixtures/streams');

const expectedSchema = z.object({
  text: z.string().default(''),
  reasoning: z.string().default(''),
  /** `index`: the number the provider gives the call, when it is not the call's place in the answer (Anthropic numbers calls by content block). */
  toolCalls: z.array(z.object({ index: z.number().optional(), id: z.string(), name: z.string(), arguments: z.string() })).default([]),
  /** `cacheReadTokens`: only when the server said how much of the prompt it took from its cache. */
  usage: z.object({ inputTokens: z.number(), outputTokens: z.number(), cacheReadTokens: z.number().optional() }).nullable(),
  end: z.discriminatedUnion('type', [
    z.object({ type: z.literal('done'), stopReason: z.enum(['end_turn', 'tool_use', 'max_tokens', 'other']) }),
    z.object({ type: z.literal('error'), code: z.string(), messageContains: z.string().optional() }),
  ]),
});

const sidecarSchema = z.object({
  server: z.string().min(1),
  version: z.string().min(1),
  source: z.array(z.string().min(1)).min(1),
  quirk: z.string().min(1),
  provider: z.enum(['openai-compatible', 'ollama', 'anthropic']),
  /** `cut`: the connection drops after the last byte instead of the answer closing. */
  ending: z.enum(['close', 'cut']).default('close'),
  /** Other routes of the server, "METHOD /path" to the JSON it answers (llama.cpp's `/props`). */
  routes: z.record(z.string(), z.unknown()).default({}),
  expected: expectedSchema,
});
type Sidecar = z.infer<typeof sidecarSchema>;

interface Fixture {
  readonly name: string;
  readonly bytes: Uint8Array;
  readonly sidecar: Sidecar;
}

function fixtures(): Fixture[] {
  const found: Fixture[] = [];
  for (const server of readdirSync(root).sort())
    for (const file of readdirSync(join(root, server)).sort()) {
      if (!/\.(sse|ndjson)$/.test(file)) continue;
      const path = join(root, server, file);
      const sidecar = sidecarSchema.parse(JSON.parse(readFileSync(path.replace(/\.(sse|ndjson)$/, '.json'), 'utf8')));
      found.push({ name: relative(root, path), bytes: new Uint8Array(readFileSync(path)), sidecar });
    }
  return found;
}

/** The route each protocol streams from, its content type, and the real provider pointed at the server. */
function wire(sidecar: Sidecar, url: string): { route: string; type: string; provider: ModelProvider } {
  switch (sidecar.provider) {
    case 'openai-compatible':
      return {
        route: 'POST /v1/chat/completions',
        type: 'text/event-stream',
        provider: new OpenAICompatibleProvider({ baseUrl: `${url}/v1` }),
      };
    case 'ollama':
      return { route: 'POST /api/chat', type: 'application/x-ndjson', provider: new OllamaProvider({ baseUrl: url }) };
    case 'anthropic':
      return {
        route: 'POST /v1/messages',
        type: 'text/event-stream',
        provider: new AnthropicProvider({ baseUrl: url, apiKey: 'test-key' }),
      };
  }
}

async function collect(stream: AsyncIterable<ModelStreamEvent>): Promise<ModelStreamEvent[]> {
  const events: ModelStreamEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

/** Whether `piece` is whole UTF-8 text, no character cut at either end. */
function decodes(decoder: TextDecoder, piece: Uint8Array): boolean {
  try {
    decoder.decode(piece);
    return true;
  } catch {
    return false;
  }
}

const joined = (events: readonly ModelStreamEvent[], type: 'text_delta' | 'reasoning_delta'): string =>
  events.map((event) => (event.type === type ? event.text : '')).join('');
const request = { model: 'fixture-model', messages: [{ role: 'user' as const, content: 'hello' }] };

describe('real server streams, replayed in awkward pieces', () => {
  let server: RawServer | null = null;
  afterEach(async () => {
    await server?.close();
    server = null;
  });

  it('has fixtures, each cut inside a line and inside a character', () => {
    const all = fixtures();
    expect(all.length).toBeGreaterThanOrEqual(10);
    const multibyte = all.filter((fixture) => fixture.bytes.some((byte) => byte >= 0xc0));
    expect(multibyte.length).toBeGreaterThan(0);
    for (const fixture of multibyte) {
      const decoder = new TextDecoder('utf-8', { fatal: true });
      expect(awkwardPieces(fixture.bytes).some((piece) => !decodes(decoder, piece))).toBe(true);
    }
  });

  it.each(fixtures().map((fixture) => [fixture.name, fixture] as const))('%s', async (_name, fixture) => {
    const { sidecar } = fixture;
    // Routes are looked up per request, so the one this fixture needs is added once the server's address is known.
    const routes: Record<string, RawRoute> = {};
    server = await startRawServer(routes);
    const { route, type, provider } = wire(sidecar, server.url);
    routes[route] = replay(fixture.bytes, type, sidecar.ending);
    for (const [other, body] of Object.entries(sidecar.routes)) routes[other] = json(body);

    const events = await collect(provider.stream(request, new AbortController().signal));
    const expected = sidecar.expected;

    expect(joined(events, 'text_delta')).toBe(expected.text);
    expect(joined(events, 'reasoning_delta')).toBe(expected.reasoning);
    const ready = events.filter((event) => event.type === 'tool_call_ready');
    expect(ready).toEqual(expected.toolCalls.map((call, place) => ({ type: 'tool_call_ready', index: place, ...call })));
    const usage = events.filter((event) => event.type === 'usage');
    expect(usage).toEqual(expected.usage ? [{ type: 'usage', ...expected.usage }] : []);
    const last = events.at(-1);
    if (expected.end.type === 'done') expect(last).toEqual({ type: 'done', stopReason: expected.end.stopReason });
    else {
      expect(last).toMatchObject({ type: 'error', error: { code: expected.end.code } });
      if (expected.end.messageContains) expect(last?.type === 'error' && last.error.message).toContain(expected.end.messageContains);
    }
    expect(events.filter((event) => event.type === 'done' || event.type === 'error')).toHaveLength(1);
  });
});
