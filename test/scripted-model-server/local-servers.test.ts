import { afterEach, describe, expect, it } from 'vitest';
import { ScriptedModelServer, textTurn, type ScriptedModelServerOptions } from '.';
import { countPromptTokens, tokenize } from './tokens';

let server: ScriptedModelServer | null = null;

async function start(options: ScriptedModelServerOptions): Promise<ScriptedModelServer> {
  server = await ScriptedModelServer.start(options);
  return server;
}

afterEach(async () => {
  await server?.close();
  server = null;
});

async function getJson(url: string, headers: Record<string, string> = {}): Promise<{ status: number; body: unknown }> {
  const response = await fetch(url, { headers });
  return { status: response.status, body: await response.json() };
}

async function post(url: string, body: unknown): Promise<{ status: number; text: string }> {
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: response.status, text: await response.text() };
}

const models = [{ id: 'scripted-model', contextLength: 32768 }, { id: 'other-model' }];
const long = (words: number): string => 'word '.repeat(words);
const chat = (content: string, extra: Record<string, unknown> = {}) => ({
  model: 'scripted-model',
  stream: true,
  messages: [{ role: 'user', content }],
  ...extra,
});

describe('the scripted server as llama.cpp', () => {
  it('reports the loaded window in /props and the trained one in /v1/models', async () => {
    const { url } = await start({ personality: 'llama.cpp', models, contextWindow: 4096 });
    expect((await getJson(`${url}/props`)).body).toMatchObject({ default_generation_settings: { n_ctx: 4096 }, total_slots: 1 });
    expect((await getJson(`${url}/v1/models`)).body).toMatchObject({
      data: [
        { id: 'scripted-model', owned_by: 'llamacpp', meta: { n_ctx_train: 32768 } },
        { id: 'other-model', meta: null },
      ],
    });
  });

  it('tokenizes with its own tokenizer, pieces and all', async () => {
    const { url } = await start({ personality: 'llama.cpp', models });
    const content = 'Hello, tokenizer 12345!';
    const ids = JSON.parse((await post(`${url}/tokenize`, { content })).text) as { tokens: number[] };
    expect(ids.tokens).toHaveLength(tokenize(content).length);
    const pieces = JSON.parse((await post(`${url}/tokenize`, { content, with_pieces: true, add_special: true })).text) as {
      tokens: { id: number; piece: string }[];
    };
    expect(pieces.tokens).toHaveLength(tokenize(content).length + 1);
    expect(
      pieces.tokens
        .slice(1)
        .map((token) => token.piece)
        .join(''),
    ).toBe(content);
  });

  it('refuses a prompt of the window or more with llama.cpp’s 400, and keeps the queued turn', async () => {
    const scripted = await start({ personality: 'llama.cpp', models, contextWindow: 64 });
    scripted.enqueue(textTurn('fits'));
    const refused = await post(`${scripted.url}/v1/chat/completions`, chat(long(80)));
    const prompt = scripted.requests[0]?.promptTokens ?? 0;
    expect(prompt).toBe(countPromptTokens([{ role: 'user', content: long(80) }], undefined));
    expect(refused.status).toBe(400);
    expect(JSON.parse(refused.text)).toEqual({
      error: {
        code: 400,
        message: `request (${prompt} tokens) exceeds the available context size (64 tokens), try increasing it`,
        type: 'exceed_context_size_error',
        n_prompt_tokens: prompt,
        n_ctx: 64,
      },
    });
    expect(scripted.pending).toBe(1);
    const fits = await post(`${scripted.url}/v1/chat/completions`, chat('short', { stream_options: { include_usage: true } }));
    expect(fits.status).toBe(200);
    expect(fits.text).toContain(`"prompt_tokens":${scripted.requests[1]?.promptTokens}`);
  });
});

describe('the scripted server as vLLM', () => {
  it('reports the window as max_model_len, and refuses the prompt alone or with max_tokens', async () => {
    const scripted = await start({ personality: 'vllm', models, contextWindow: 64 });
    expect((await getJson(`${scripted.url}/v1/models`)).body).toMatchObject({
      data: [
        { id: 'scripted-model', max_model_len: 64 },
        { id: 'other-model', max_model_len: 64 },
      ],
    });
    const alone = await post(`${scripted.url}/v1/chat/completions`, chat(long(80)));
    expect(alone.status).toBe(400);
    expect(JSON.parse(alone.text)).toMatchObject({
      error: {
        message: expect.stringMatching(/^This model's maximum context length is 64 tokens\. However, your request has \d+ input tokens\./),
        type: 'BadRequestError',
        code: 400,
      },
    });
    const withRoom = await post(`${scripted.url}/v1/chat/completions`, chat('short', { max_tokens: 100 }));
    expect(JSON.parse(withRoom.text)).toMatchObject({
      error: { message: expect.stringContaining("'max_tokens' or 'max_completion_tokens' is too large: 100.") },
    });
    expect((await getJson(`${scripted.url}/props`)).status).toBe(404);
  });

  it('refuses nothing without a window', async () => {
    const scripted = await start({ models });
    scripted.enqueue(textTurn('ok'));
    expect((await post(`${scripted.url}/v1/chat/completions`, chat(long(5000)))).status).toBe(200);
  });
});

describe('the scripted server as LM Studio', () => {
  it('lists the loaded window in /api/v0/models and /api/v1/models', async () => {
    const { url } = await start({ personality: 'lmstudio', models, contextWindow: 8192 });
    expect((await getJson(`${url}/api/v0/models`)).body).toMatchObject({
      data: [
        { id: 'scripted-model', state: 'loaded', loaded_context_length: 8192, max_context_length: 32768 },
        { id: 'other-model', state: 'not-loaded' },
      ],
    });
    expect((await getJson(`${url}/api/v1/models`)).body).toMatchObject({
      models: [
        {
          key: 'scripted-model',
          max_context_length: 32768,
          loaded_instances: [{ id: 'scripted-model', config: { context_length: 8192 } }],
        },
        { key: 'other-model', loaded_instances: [] },
      ],
    });
  });

  it('sends the overflow inside a 200 stream, and as a 400 with a bare string otherwise', async () => {
    const { url } = await start({ personality: 'lmstudio', models, contextWindow: 64 });
    const streamed = await post(`${url}/v1/chat/completions`, chat(long(80)));
    expect(streamed.status).toBe(200);
    expect(streamed.text).toMatch(
      /^data: \{"error":\{"message":"The number of tokens to keep from the initial prompt is greater than the context length \(n_keep: \d+>= n_ctx: 64\)/,
    );
    const plain = await post(`${url}/v1/chat/completions`, chat(long(80), { stream: false }));
    expect(plain.status).toBe(400);
    expect(JSON.parse(plain.text)).toEqual({ error: expect.stringContaining('greater than the context length') });
  });

  it('as 0.3 has no /api/v1/models and its older words', async () => {
    const { url } = await start({ personality: 'lmstudio-0.3', models, contextWindow: 64 });
    expect((await getJson(`${url}/api/v1/models`)).status).toBe(404);
    expect((await post(`${url}/v1/chat/completions`, chat(long(80)))).text).toContain(
      'when context the overflows. However, the model is loaded with context length of only 64 tokens',
    );
  });
});

describe('the scripted server’s Anthropic route', () => {
  const anthropic = { 'anthropic-version': '2023-06-01', 'content-type': 'application/json' };

  it('gives one model’s max_input_tokens, and 404 for one it does not serve', async () => {
    const { url } = await start({ models, contextWindow: 4096 });
    expect(await getJson(`${url}/v1/models/scripted-model`, anthropic)).toMatchObject({
      status: 200,
      body: { id: 'scripted-model', max_input_tokens: 4096 },
    });
    expect((await getJson(`${url}/v1/models/nope`, anthropic)).status).toBe(404);
  });

  it('refuses a prompt longer than the window, counting the system prompt', async () => {
    const scripted = await start({ models, contextWindow: 64 });
    const response = await fetch(`${scripted.url}/v1/messages`, {
      method: 'POST',
      headers: anthropic,
      body: JSON.stringify({ model: 'scripted-model', max_tokens: 10, system: long(80), messages: [{ role: 'user', content: 'hi' }] }),
    });
    const prompt = scripted.requests[0]?.promptTokens ?? 0;
    expect(prompt).toBeGreaterThan(80);
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({
      type: 'error',
      error: { type: 'invalid_request_error', message: `prompt is too long: ${prompt} tokens > 64 maximum` },
    });
  });
});
