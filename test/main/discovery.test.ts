import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OpenAICompatibleProvider } from '../../src/main/providers/openai-compatible-provider';
import { discoverLocalEndpoints } from '../../src/main/providers/discovery';
import { closedPort } from '../helpers';
import { ScriptedModelServer } from '../scripted-model-server';

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
        { name: 'Ollama', baseUrl: server.openaiBaseUrl },
        { name: 'LM Studio', baseUrl: `http://127.0.0.1:${closed}/v1` },
      ],
      (baseUrl) => new OpenAICompatibleProvider({ baseUrl }),
    );
    expect(Date.now() - started).toBeLessThan(2000);
    expect(found).toEqual([
      {
        name: 'Ollama',
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
      [{ name: 'vLLM', baseUrl: `http://127.0.0.1:${port}/v1` }],
      (baseUrl) => new OpenAICompatibleProvider({ baseUrl }),
      300,
    );
    expect(found).toEqual([]);
    expect(Date.now() - started).toBeLessThan(1500);
    silent.closeAllConnections();
    await new Promise<void>((resolve) => silent.close(() => resolve()));
  });
});
