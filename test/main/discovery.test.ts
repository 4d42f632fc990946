import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/main/agent/ports/clock';
import { OpenAICompatibleProvider } from '../../src/main/providers/openai-compatible-provider';
import { defaultDiscoveryCandidates, discoverLocalEndpoints, probeLocalEndpoints } from '../../src/main/providers/discovery';
import { ProviderRegistry } from '../../src/main/providers/provider-registry';
import { MemorySecretStore } from '../../src/main/secrets/memory-secret-store';
import { defaultSettings, type Settings } from '../../src/shared/domain';
import { closedPort } from '../helpers';
import { ScriptedModelServer } from '../scripted-model-server';

/** A registry over settings in memory, probing only the given candidates. */
function registryFor(candidates: ConstructorParameters<typeof ProviderRegistry>[0]['discoveryCandidates']): ProviderRegistry {
  let settings: Settings = { ...defaultSettings };
  return new ProviderRegistry({
    settings: { get: () => settings, set: (next) => (settings = next) },
    secrets: new MemorySecretStore(),
    clock: systemClock,
    ...(candidates ? { discoveryCandidates: candidates } : {}),
  });
}

describe('local endpoint discovery', () => {
  let server: ScriptedModelServer;
  beforeAll(async () => {
    server = await ScriptedModelServer.start({ models: [{ id: 'llama3.2:3b', contextLength: 131072 }, { id: 'qwen2.5-coder:7b' }] });
  });
  afterAll(async () => server.close());

  it('lists the servers that answer, with their models, and leaves out closed ports quickly', async () => {
    const closed = await closedPort();
    const started = Date.now();
    const found = await discoverLocalEndpoints(
      [
        { name: 'vLLM', kind: 'openai-compatible', baseUrl: server.openaiBaseUrl },
        { name: 'LM Studio', kind: 'openai-compatible', baseUrl: `http://127.0.0.1:${closed}/v1` },
      ],
      (_kind, baseUrl) => new OpenAICompatibleProvider({ baseUrl }),
    );
    expect(Date.now() - started).toBeLessThan(2000);
    expect(found).toEqual([
      {
        name: 'vLLM',
        kind: 'openai-compatible',
        baseUrl: server.openaiBaseUrl,
        models: [{ id: 'llama3.2:3b', contextLength: 131072 }, { id: 'qwen2.5-coder:7b' }],
      },
    ]);
  });

  it('gives up on a server that does not answer within the timeout', async () => {
    const { createServer } = await import('node:http');
    const silent = createServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const port = (silent.address() as { port: number }).port;
    const started = Date.now();
    const found = await discoverLocalEndpoints(
      [{ name: 'vLLM', kind: 'openai-compatible', baseUrl: `http://127.0.0.1:${port}/v1` }],
      (_kind, baseUrl) => new OpenAICompatibleProvider({ baseUrl }),
      300,
    );
    expect(found).toEqual([]);
    expect(Date.now() - started).toBeLessThan(1500);
    silent.closeAllConnections();
    await new Promise<void>((resolve) => silent.close(() => resolve()));
  });

  it('says a server that answers after the timeout is slow, not missing, and finds it when given longer', async () => {
    const slow = await ScriptedModelServer.start({ models: [{ id: 'slow-model' }], answerDelayMs: 600 });
    const closed = await closedPort();
    const candidates = [
      { name: 'vLLM', kind: 'openai-compatible' as const, baseUrl: slow.openaiBaseUrl },
      { name: 'LM Studio', kind: 'openai-compatible' as const, baseUrl: `http://127.0.0.1:${closed}/v1` },
    ];
    const create = (_kind: unknown, baseUrl: string): OpenAICompatibleProvider => new OpenAICompatibleProvider({ baseUrl });
    try {
      const first = await probeLocalEndpoints(candidates, create, 200);
      expect(first.found).toEqual([]);
      expect(first.timeoutMs).toBe(200);
      expect(first.missed).toEqual([
        expect.objectContaining({ name: 'vLLM', reason: 'slow', message: expect.stringContaining('did not answer within 0.2 s') }),
        expect.objectContaining({ name: 'LM Studio', reason: 'not_running', message: expect.stringContaining('Nothing is listening') }),
      ]);
      const second = await probeLocalEndpoints(candidates, create, 3_000);
      expect(second.found).toEqual([expect.objectContaining({ name: 'vLLM', models: [{ id: 'slow-model' }] })]);
    } finally {
      await slow.close();
    }
  });

  it('says in words why a server that answers with an error was not found', async () => {
    const { createServer } = await import('node:http');
    const failing = createServer((_request, response) => response.writeHead(500, { 'content-type': 'application/json' }).end('{}'));
    await new Promise<void>((resolve) => failing.listen(0, '127.0.0.1', resolve));
    const port = (failing.address() as { port: number }).port;
    const result = await probeLocalEndpoints(
      [{ name: 'vLLM', kind: 'openai-compatible', baseUrl: `http://127.0.0.1:${port}/v1` }],
      (_kind, baseUrl) => new OpenAICompatibleProvider({ baseUrl }),
      2_000,
    );
    expect(result.missed).toEqual([expect.objectContaining({ reason: 'failed', message: expect.stringContaining('failed (500)') })]);
    failing.closeAllConnections();
    await new Promise<void>((resolve) => failing.close(() => resolve()));
  });

  it('finds Ollama through its own API, as an endpoint of kind ollama at the server root', async () => {
    const registry = registryFor([
      { name: 'Ollama', kind: 'ollama', baseUrl: server.ollamaBaseUrl },
      { name: 'LM Studio', kind: 'openai-compatible', baseUrl: server.openaiBaseUrl },
    ]);
    const { found } = await registry.discover();
    expect(found).toEqual([
      {
        name: 'Ollama',
        kind: 'ollama',
        baseUrl: server.ollamaBaseUrl,
        models: [{ id: 'llama3.2:3b', contextLength: 131072 }, { id: 'qwen2.5-coder:7b' }],
      },
      expect.objectContaining({ name: 'LM Studio', kind: 'openai-compatible' }),
    ]);
    // The endpoint the person adds from the list is tested the way it was found.
    const saved = registry.save({ kind: found[0]!.kind, name: found[0]!.name, baseUrl: found[0]!.baseUrl });
    await expect(registry.test({ providerId: saved.id })).resolves.toMatchObject({ ok: true, models: found[0]!.models });
  });

  it('probes the usual Ollama address with Ollama’s protocol', () => {
    expect(defaultDiscoveryCandidates).toContainEqual({ name: 'Ollama', kind: 'ollama', baseUrl: 'http://127.0.0.1:11434' });
    expect(defaultDiscoveryCandidates.filter((candidate) => candidate.kind === 'ollama')).toHaveLength(1);
  });
});
