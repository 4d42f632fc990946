import { afterEach, describe, expect, it } from 'vitest';
import { AnthropicProvider } from '../../../src/main/providers/anthropic-provider';
import { OpenAICompatibleProvider } from '../../../src/main/providers/openai-compatible-provider';
import { closedPort } from '../../helpers';
import { ScriptedModelServer, type ScriptedModelServerOptions } from '../../scripted-model-server';
import { tokenize } from '../../scripted-model-server/tokens';
import { hang, json, startRawServer, text, type RawRoute, type RawServer } from './raw-server';

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

async function scripted(options: ScriptedModelServerOptions): Promise<ScriptedModelServer> {
  const server = await ScriptedModelServer.start(options);
  closers.push(() => server.close());
  return server;
}

async function raw(routes: Record<string, RawRoute>): Promise<RawServer> {
  const server = await startRawServer(routes);
  closers.push(() => server.close());
  return server;
}

const models = [
  { id: 'scripted-model', contextLength: 32768 },
  { id: 'other-model', contextLength: 16384 },
];
const live = (): AbortSignal => new AbortController().signal;
const openAI = (baseUrl: string, options: { probeTimeoutMs?: number; tokenizeTimeoutMs?: number } = {}): OpenAICompatibleProvider =>
  new OpenAICompatibleProvider({ baseUrl, ...options });

describe('OpenAICompatibleProvider.window', () => {
  it('reads llama.cpp’s loaded window from /props and the trained one from /v1/models', async () => {
    const server = await scripted({ personality: 'llama.cpp', models, contextWindow: 4096 });
    expect(await openAI(server.openaiBaseUrl).window('scripted-model', live())).toEqual({
      loaded: 4096,
      trained: 32768,
      source: 'reported by llama.cpp',
      route: 'llama.cpp /props; trained size from llama.cpp /v1/models meta.n_ctx_train',
    });
  });

  it('reads vLLM’s max_model_len as the loaded window', async () => {
    const server = await scripted({ personality: 'vllm', models, contextWindow: 8192 });
    expect(await openAI(server.openaiBaseUrl).window('scripted-model', live())).toEqual({
      loaded: 8192,
      trained: null,
      source: 'reported by the server',
      route: '/v1/models max_model_len',
    });
  });

  it('reads LM Studio 0.4’s loaded instance, and only the trained size of a model it has not loaded', async () => {
    const server = await scripted({ personality: 'lmstudio', models, contextWindow: 8192 });
    const provider = openAI(server.openaiBaseUrl);
    expect(await provider.window('scripted-model', live())).toEqual({
      loaded: 8192,
      trained: 32768,
      source: 'reported by LM Studio',
      route: 'LM Studio /api/v1/models',
    });
    expect(await provider.window('other-model', live())).toEqual({
      loaded: null,
      trained: 16384,
      source: 'reported by LM Studio',
      route: 'LM Studio /api/v1/models',
    });
  });

  it('falls back to LM Studio’s /api/v0/models where /api/v1 is missing', async () => {
    const server = await scripted({ personality: 'lmstudio-0.3', models, contextWindow: 4096 });
    expect(await openAI(server.openaiBaseUrl).window('scripted-model', live())).toEqual({
      loaded: 4096,
      trained: 32768,
      source: 'reported by LM Studio',
      route: 'LM Studio /api/v0/models',
    });
  });

  it('says nothing about a model no route knows', async () => {
    const server = await scripted({ personality: 'vllm', models, contextWindow: 8192 });
    expect(await openAI(server.openaiBaseUrl).window('unknown-model', live())).toBeNull();
  });

  it.each([
    ['zero', 0],
    ['negative', -4096],
    ['fractional', 4096.5],
    ['absurd', 99_000_000],
    ['a string', '4096'],
  ])('passes over a %s n_ctx to the next source', async (_what, nCtx) => {
    const server = await raw({
      'GET /props': json({ default_generation_settings: { n_ctx: nCtx } }),
      'GET /v1/models': json({ object: 'list', data: [{ id: 'm', max_model_len: 2048, meta: { n_ctx_train: -1 } }] }),
    });
    expect(await openAI(`${server.url}/v1`).window('m', live())).toEqual({
      loaded: 2048,
      trained: null,
      source: 'reported by the server',
      route: '/v1/models max_model_len',
    });
  });

  it('takes HTML, garbage and a wrong shape for “not this server”', async () => {
    const server = await raw({
      'GET /props': text('<html><body>Ollama is running</body></html>'),
      'GET /api/v1/models': text('{not json', 200, 'application/json'),
      'GET /api/v0/models': json({ data: 'nothing here' }),
      'GET /v1/models': json({ object: 'list', data: [{ id: 'm', max_model_len: 2048 }] }),
    });
    expect(await openAI(`${server.url}/v1`).window('m', live())).toMatchObject({ loaded: 2048, route: '/v1/models max_model_len' });
  });

  it('gives up on a route that hangs and uses the others, within the probe timeout', async () => {
    const server = await raw({ 'GET /props': hang, 'GET /v1/models': json({ data: [{ id: 'm', max_model_len: 2048 }] }) });
    const started = Date.now();
    expect(await openAI(`${server.url}/v1`, { probeTimeoutMs: 300 }).window('m', live())).toMatchObject({ loaded: 2048 });
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it('throws a timeout when every route hangs', async () => {
    const server = await raw({ 'GET /props': hang, 'GET /api/v1/models': hang, 'GET /api/v0/models': hang, 'GET /v1/models': hang });
    const started = Date.now();
    await expect(openAI(`${server.url}/v1`, { probeTimeoutMs: 300 }).window('m', live())).rejects.toMatchObject({
      code: 'model_timeout',
      retryable: true,
    });
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it('throws a connection failure when nothing listens', async () => {
    const base = `http://127.0.0.1:${await closedPort()}/v1`;
    await expect(openAI(base).window('m', live())).rejects.toMatchObject({
      name: 'ModelError',
      code: 'model_connection_failed',
      message: expect.stringContaining(base),
    });
  });
});

describe('OpenAICompatibleProvider.countTokens', () => {
  it('counts with llama.cpp’s /tokenize, without asking window() first', async () => {
    const server = await scripted({ personality: 'llama.cpp', models, contextWindow: 4096 });
    const provider = openAI(server.openaiBaseUrl);
    const sample = 'Counting tokens: the server’s own tokenizer, 12345 digits and all.';
    expect(await provider.hasTokenizer(live())).toBe(true);
    expect(await provider.countTokens('scripted-model', sample, live())).toBe(tokenize(sample).length);
  });

  it('refuses at once on a server without a tokenizer route', async () => {
    const server = await scripted({ personality: 'vllm', models, contextWindow: 4096 });
    const provider = openAI(server.openaiBaseUrl);
    await provider.window('scripted-model', live());
    const started = Date.now();
    await expect(provider.countTokens('scripted-model', 'hello', live())).rejects.toMatchObject({
      name: 'ModelError',
      code: 'model_request_rejected',
      message: expect.stringContaining('only a llama.cpp server has a tokenizer route'),
    });
    expect(Date.now() - started).toBeLessThan(100);
    expect(await provider.hasTokenizer(live())).toBe(false);
  });

  const llamaProps = json({ default_generation_settings: { n_ctx: 4096 } });

  it('says what a tokenizer that fails answered', async () => {
    const server = await raw({
      'GET /props': llamaProps,
      'POST /tokenize': json({ error: { code: 500, message: 'tokenizer crashed' } }, 500),
    });
    await expect(openAI(`${server.url}/v1`).countTokens('m', 'hello', live())).rejects.toMatchObject({
      code: 'model_server_error',
      message: expect.stringContaining('tokenizer crashed'),
    });
  });

  it('says so when the tokenizer answers something that is not a token list', async () => {
    const server = await raw({ 'GET /props': llamaProps, 'POST /tokenize': json({ count: 3 }) });
    await expect(openAI(`${server.url}/v1`).countTokens('m', 'hello', live())).rejects.toMatchObject({ code: 'model_bad_response' });
  });

  it('fails within its timeout when the tokenizer hangs', async () => {
    const server = await raw({ 'GET /props': llamaProps, 'POST /tokenize': hang });
    const started = Date.now();
    await expect(openAI(`${server.url}/v1`, { tokenizeTimeoutMs: 300 }).countTokens('m', 'hello', live())).rejects.toMatchObject({
      code: 'model_timeout',
      message: expect.stringContaining('/tokenize'),
    });
    expect(Date.now() - started).toBeLessThan(2_000);
  });
});

describe('AnthropicProvider.window', () => {
  const anthropic = (server: ScriptedModelServer, apiKey: string | null = 'test-key'): AnthropicProvider =>
    new AnthropicProvider({ baseUrl: server.anthropicBaseUrl, apiKey });

  it('reads max_input_tokens from the model’s own entry', async () => {
    const server = await scripted({ models, contextWindow: 200_000 });
    expect(await anthropic(server).window('scripted-model', live())).toEqual({
      loaded: 200_000,
      trained: 200_000,
      source: 'reported by Anthropic',
      route: '/v1/models/{id} max_input_tokens',
    });
    expect(server.requests).toHaveLength(0);
  });

  it('says nothing about a model the API does not know, or one without the field', async () => {
    const server = await scripted({ models: [{ id: 'scripted-model' }] });
    expect(await anthropic(server).window('unknown-model', live())).toBeNull();
    expect(await anthropic(server).window('scripted-model', live())).toBeNull();
  });

  it('says which key is missing instead of asking', async () => {
    const server = await scripted({ models });
    await expect(anthropic(server, null).window('scripted-model', live())).rejects.toMatchObject({ code: 'model_auth_failed' });
  });
});
