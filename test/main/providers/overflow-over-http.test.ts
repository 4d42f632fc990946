import { afterEach, describe, expect, it } from 'vitest';
import type { Clock } from '../../../src/main/agent/ports/clock';
import type { ModelProvider, ModelRequest, ModelStreamEvent } from '../../../src/main/agent/ports/model-provider';
import { RetryingModelProvider } from '../../../src/main/agent/rules/retry';
import { AnthropicProvider } from '../../../src/main/providers/anthropic-provider';
import { OpenAICompatibleProvider } from '../../../src/main/providers/openai-compatible-provider';
import { ScriptedModelServer, textTurn, type Personality, type ScriptedModelServerOptions } from '../../scripted-model-server';

const servers: ScriptedModelServer[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
});

async function start(options: ScriptedModelServerOptions): Promise<ScriptedModelServer> {
  const server = await ScriptedModelServer.start(options);
  servers.push(server);
  return server;
}

const noWait: Clock = { now: () => Date.now(), sleep: async () => undefined };

/** Streams through the retrying wrapper, as a turn does, and returns the events. */
async function run(provider: ModelProvider, request: ModelRequest): Promise<ModelStreamEvent[]> {
  const events: ModelStreamEvent[] = [];
  for await (const event of new RetryingModelProvider(provider, noWait).stream(request, new AbortController().signal)) events.push(event);
  return events;
}

const window = 64;
const models = [{ id: 'scripted-model', contextLength: 32768 }];
const tooLong: ModelRequest = { model: 'scripted-model', system: 'Be brief.', messages: [{ role: 'user', content: 'word '.repeat(100) }] };
const fits: ModelRequest = { model: 'scripted-model', messages: [{ role: 'user', content: 'hello' }] };

function lastError(events: readonly ModelStreamEvent[]): Extract<ModelStreamEvent, { type: 'error' }> {
  const last = events.at(-1);
  if (last?.type !== 'error') throw new Error(`the stream ended with ${JSON.stringify(last)}`);
  return last;
}

describe.each<readonly [Personality, RegExp]>([
  ['llama.cpp', /request \(\d+ tokens\) exceeds the available context size \(64 tokens\)/],
  ['vllm', /This model's maximum context length is 64 tokens\. However, your request has \d+ input tokens/],
  ['lmstudio', /The number of tokens to keep from the initial prompt is greater than the context length/],
  ['lmstudio-0.3', /Trying to keep the first \d+ tokens when context the overflows/],
])('the OpenAI-compatible provider against %s', (personality, words) => {
  it('reports a prompt that does not fit as model_context_overflow, with the numbers, and does not retry it', async () => {
    const server = await start({ personality, models, contextWindow: window });
    server.enqueue(textTurn('never sent'));
    const events = await run(new OpenAICompatibleProvider({ baseUrl: server.openaiBaseUrl }), tooLong);
    const prompt = server.requests[0]?.promptTokens;
    expect(server.requests).toHaveLength(1);
    expect(events.some((event) => event.type === 'retry_scheduled')).toBe(false);
    const { error } = lastError(events);
    expect(error.code).toBe('model_context_overflow');
    expect(error.retryable).toBeUndefined();
    expect(error.message).toContain(`did not fit the model's window at ${server.openaiBaseUrl}`);
    expect(error.message).toContain(`the prompt is ${prompt} tokens, the window is ${window} tokens`);
    expect(error.message).toMatch(words);
  });

  it('streams a prompt that fits, and no request went over the window', async () => {
    const server = await start({ personality, models, contextWindow: window });
    server.enqueue(textTurn('short answer'));
    const events = await run(new OpenAICompatibleProvider({ baseUrl: server.openaiBaseUrl }), fits);
    expect(events.at(-1)).toEqual({ type: 'done', stopReason: 'end_turn' });
    // llama.cpp says how much of the prompt came from its slot: none, on a first request.
    const cached = personality === 'llama.cpp' ? { cacheReadTokens: 0 } : {};
    expect(events).toContainEqual({
      type: 'usage',
      inputTokens: server.requests[0]?.promptTokens,
      outputTokens: expect.any(Number),
      ...cached,
    });
    expect(server.requests.every((request) => request.promptTokens < window)).toBe(true);
  });
});

describe('the OpenAI-compatible provider and vLLM’s other refusals', () => {
  it('reads the refusal of a prompt that fits only without the room asked for the answer', async () => {
    const server = await start({ personality: 'vllm', models, contextWindow: window });
    const { error } = lastError(await run(new OpenAICompatibleProvider({ baseUrl: server.openaiBaseUrl }), { ...fits, maxTokens: 100 }));
    expect(error).toMatchObject({
      code: 'model_context_overflow',
      message: expect.stringContaining("'max_tokens' or 'max_completion_tokens' is too large: 100."),
    });
    expect(error.message).toContain(`the prompt is ${server.requests[0]?.promptTokens} tokens, the window is ${window} tokens`);
  });

  it('reads older vLLM’s flat error body, which the SDK alone would lose', async () => {
    const server = await start({ models });
    const message =
      "This model's maximum context length is 4096 tokens. However, your request has 5000 input tokens. Please reduce the length of the input messages.";
    server.enqueue({
      steps: [],
      fault: { kind: 'status', status: 400, body: { object: 'error', message, type: 'BadRequestError', param: null, code: 400 } },
    });
    const { error } = lastError(await run(new OpenAICompatibleProvider({ baseUrl: server.openaiBaseUrl }), fits));
    expect(error).toMatchObject({
      code: 'model_context_overflow',
      message: expect.stringContaining('the prompt is 5000 tokens, the window is 4096 tokens'),
    });
  });

  it('keeps calling another error in the stream a bad response', async () => {
    const server = await start({ models });
    server.enqueue({
      steps: [{ kind: 'text', text: 'partial' }],
      fault: { kind: 'stream_error', afterChunks: 1, body: { error: { message: 'the model crashed' } } },
    });
    const { error } = lastError(await run(new OpenAICompatibleProvider({ baseUrl: server.openaiBaseUrl }), fits));
    expect(error).toMatchObject({ code: 'model_bad_response', message: expect.stringContaining('the model crashed') });
  });
});

describe('the Anthropic provider', () => {
  const anthropic = (server: ScriptedModelServer): AnthropicProvider =>
    new AnthropicProvider({ baseUrl: server.anthropicBaseUrl, apiKey: 'test-key' });

  it('reports a prompt longer than the window as model_context_overflow', async () => {
    const server = await start({ models, contextWindow: window });
    const { error } = lastError(await run(anthropic(server), { ...tooLong, maxTokens: 10 }));
    expect(server.requests).toHaveLength(1);
    expect(error.code).toBe('model_context_overflow');
    expect(error.message).toContain(`the prompt is ${server.requests[0]?.promptTokens} tokens, the window is ${window} tokens`);
    expect(error.message).toContain('prompt is too long');
  });

  it('reports a prompt that fits only without max_tokens the same way', async () => {
    const server = await start({ models, contextWindow: window });
    const { error } = lastError(await run(anthropic(server), { ...fits, maxTokens: 100 }));
    expect(error).toMatchObject({
      code: 'model_context_overflow',
      message: expect.stringContaining('input length and `max_tokens` exceed context limit'),
    });
  });

  it('reports the 413 of a request too large in bytes as one that does not fit', async () => {
    const server = await start({ models });
    server.enqueue({
      steps: [],
      fault: {
        kind: 'status',
        status: 413,
        body: { type: 'error', error: { type: 'request_too_large', message: 'Request exceeds the maximum allowed number of bytes.' } },
      },
    });
    const { error } = lastError(await run(anthropic(server), fits));
    expect(error).toMatchObject({ code: 'model_context_overflow', message: expect.stringContaining('maximum allowed number of bytes') });
  });
});
