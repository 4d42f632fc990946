import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ModelStreamEvent } from '../../../src/main/agent/ports/model-provider';
import { connectionFailure } from '../../../src/main/providers/failure-words';
import { OllamaProvider } from '../../../src/main/providers/ollama-provider';
import { OpenAICompatibleProvider } from '../../../src/main/providers/openai-compatible-provider';
import { closedPort } from '../../helpers';
import { json, startRawServer, type RawServer } from './raw-server';

/*
 * Each way a model server can be out of reach, or refuse, produced for real where this machine can (a name that does
 * not resolve, a closed port, a port fetch never connects to, https spoken to a plain http server, a server answering
 * 401, 404, 429 and 500 with the bodies Ollama and vLLM send), and the message a person reads for it: what happened
 * and what to do, with no socket codes or OpenSSL lines.
 */

const request = { model: 'qwen3:8b', messages: [{ role: 'user' as const, content: 'hello' }] };

async function lastError(stream: AsyncIterable<ModelStreamEvent>): Promise<{ code: string; message: string }> {
  let last: ModelStreamEvent | undefined;
  for await (const event of stream) last = event;
  if (last?.type !== 'error') throw new Error(`the stream ended without an error: ${JSON.stringify(last)}`);
  return last.error;
}

const plain = (message: string): void => {
  expect(message).not.toMatch(/ENOTFOUND|ECONNREFUSED|EAI_AGAIN|fetch failed|bad port|SSL routines|getaddrinfo|Invalid input/);
};

describe('connection failures, in words', () => {
  let http: RawServer;
  beforeAll(async () => {
    http = await startRawServer({ 'GET /v1/models': json({ object: 'list', data: [] }) });
  });
  afterAll(async () => http.close());

  it('a name that does not resolve names the computer and says to check the address', async () => {
    // .invalid never resolves (RFC 6761), with or without a network.
    const provider = new OpenAICompatibleProvider({ baseUrl: 'http://model-box.invalid:8080/v1' });
    const error = await lastError(provider.stream(request, new AbortController().signal));
    expect(error.code).toBe('model_connection_failed');
    expect(error.message).toContain('No computer named “model-box.invalid” could be found');
    expect(error.message).toContain('Check the address for a typo');
    plain(error.message);
  });

  it('a closed port says nothing is listening there, for each provider', async () => {
    const base = `http://127.0.0.1:${await closedPort()}`;
    for (const provider of [new OpenAICompatibleProvider({ baseUrl: `${base}/v1` }), new OllamaProvider({ baseUrl: base })]) {
      const error = await lastError(provider.stream(request, new AbortController().signal));
      expect(error.message).toMatch(/^Nothing is listening at http:\/\/127\.0\.0\.1:\d+.*: the model server is not running there/);
      plain(error.message);
    }
  });

  it('a closed well-known port says how to start the server that uses it', () => {
    const refused = { codes: ['ECONNREFUSED'], messages: ['fetch failed', 'connect ECONNREFUSED 127.0.0.1:11434'] };
    expect(connectionFailure(refused, 'http://127.0.0.1:11434')?.message).toContain('run `ollama serve`');
    expect(connectionFailure(refused, 'http://localhost:1234/v1')?.message).toContain('LM Studio');
    expect(connectionFailure(refused, 'http://127.0.0.1:8080/v1')?.message).toContain('llama-server');
    expect(connectionFailure(refused, 'http://127.0.0.1:8000/v1')?.message).toContain('vllm serve');
    expect(connectionFailure(refused, 'http://127.0.0.1:9999/v1')?.message).not.toContain('’s:');
  });

  it('a port fetch refuses to use says to pick another', async () => {
    // 6000 (X11) is on the fetch standard's list of bad ports: no connection is even tried.
    const provider = new OpenAICompatibleProvider({ baseUrl: 'http://127.0.0.1:6000/v1' });
    const error = await lastError(provider.stream(request, new AbortController().signal));
    expect(error.message).toContain('Port 6000 is one that connections are never made to');
    expect(error.message).toContain('Run the model server on another port');
    plain(error.message);
  });

  it('https to a plain http server says to use http://', async () => {
    const provider = new OpenAICompatibleProvider({ baseUrl: `${http.url.replace('http:', 'https:')}/v1` });
    const error = await lastError(provider.stream(request, new AbortController().signal));
    expect(error.message).toContain('starts with https://, but the server there speaks plain http');
    plain(error.message);
  });

  it('an untrusted certificate says why and what to do', () => {
    const selfSigned = { codes: ['DEPTH_ZERO_SELF_SIGNED_CERT'], messages: ['fetch failed', 'self-signed certificate'] };
    expect(connectionFailure(selfSigned, 'https://gpu-box.lan:8000/v1')?.message).toBe(
      'The certificate of gpu-box.lan is not trusted (it is self-signed or from an unknown issuer), so nothing was sent. For a server on this computer, use http://; otherwise give the server a certificate this computer trusts.',
    );
    const expired = { codes: ['CERT_HAS_EXPIRED'], messages: ['fetch failed', 'certificate has expired'] };
    expect(connectionFailure(expired, 'https://gpu-box.lan/v1')?.message).toContain('it has expired');
  });
});

describe('statuses, in words', () => {
  let server: RawServer;
  beforeAll(async () => {
    server = await startRawServer({
      // What Ollama answers for a model it does not have, on its own API and on /v1.
      'POST /api/chat': json({ error: 'model "qwen3:8b" not found, try pulling it first' }, 404),
      'POST /v1/chat/completions': json(
        { object: 'error', message: 'The model `qwen3:8b` does not exist.', type: 'NotFoundError', param: null, code: 404 },
        404,
      ),
      'POST /auth/v1/chat/completions': json({ error: { message: 'Invalid API key', type: 'invalid_request_error' } }, 401),
      'POST /busy/v1/chat/completions': json({ error: { message: 'Too many requests' } }, 429),
      'POST /broken/v1/chat/completions': json({ error: { message: 'CUDA error: out of memory' } }, 500),
    });
  });
  afterAll(async () => server.close());

  it('a model the server does not have says to pick a listed one or pull it, on Ollama and vLLM', async () => {
    const ollama = await lastError(new OllamaProvider({ baseUrl: server.url }).stream(request, new AbortController().signal));
    expect(ollama.message).toContain('The model is not on');
    expect(ollama.message).toContain('ollama pull');
    expect(ollama.message).toContain('The server said: model "qwen3:8b" not found');
    const vllm = await lastError(
      new OpenAICompatibleProvider({ baseUrl: `${server.url}/v1` }).stream(request, new AbortController().signal),
    );
    expect(vllm.message).toContain('The model is not on');
  });

  it('a path the server does not have says to check the address and kind', async () => {
    const error = await lastError(
      new OpenAICompatibleProvider({ baseUrl: `${server.url}/nowhere/v1` }).stream(request, new AbortController().signal),
    );
    expect(error.message).toContain('has no such page (404)');
    expect(error.message).toContain('usually ends in /v1');
  });

  it('401 points at the key in Settings, 429 says it will try again, 500 points at the server’s log', async () => {
    const stream = (path: string) =>
      lastError(
        new OpenAICompatibleProvider({ baseUrl: `${server.url}${path}/v1`, apiKey: 'wrong' }).stream(request, new AbortController().signal),
      );
    const auth = await stream('/auth');
    expect(auth).toMatchObject({ code: 'model_auth_failed' });
    expect(auth.message).toContain('Check the key in Settings → Endpoints');
    const busy = await stream('/busy');
    expect(busy).toMatchObject({ code: 'model_rate_limited' });
    expect(busy.message).toContain('The request is tried again after a pause');
    const broken = await stream('/broken');
    expect(broken).toMatchObject({ code: 'model_server_error' });
    expect(broken.message).toContain('Its own log says why');
    expect(broken.message).toContain('The server said: CUDA error: out of memory');
  });
});
