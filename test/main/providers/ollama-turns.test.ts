import { afterEach, describe, expect, it } from 'vitest';
import { ScriptedModelServer, textTurn, type OllamaOptions } from '../../scripted-model-server';
import { createHarness, type Harness } from '../agent/harness';

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

/** A harness whose one endpoint is the scripted server acting as Ollama, its model trained for `trained` tokens. */
async function ollamaHarness(trained: number, ollama: OllamaOptions = {}): Promise<{ server: ScriptedModelServer; harness: Harness }> {
  const server = await ScriptedModelServer.start({ models: [{ id: 'scripted-model', contextLength: trained }], ollama });
  closers.push(() => server.close());
  const harness = await createHarness(server, {
    settings: { providers: [{ id: 'ollama1', kind: 'ollama', name: 'Ollama', baseUrl: server.ollamaBaseUrl }] },
  });
  closers.push(() => harness.close());
  return { server, harness };
}

async function turn(harness: Harness, text: string): Promise<void> {
  harness.runtime.send(harness.sessionId, text);
  await harness.runtime.whenIdle(harness.sessionId);
}

describe('turns against Ollama', () => {
  it('send the window the app chose as num_ctx, so Ollama loads the model with it instead of its default', async () => {
    const { server, harness } = await ollamaHarness(32768);
    server.enqueue(textTurn('Hello.'));
    await turn(harness, 'Hi');
    expect(harness.view().status).toBe('completed');
    const chat = server.requests.find((request) => request.path === '/api/chat');
    expect(chat?.body['options']).toMatchObject({ num_ctx: 8192 });
    expect(chat?.context).toMatchObject({ window: 8192, droppedMessages: 0, shifted: false });
  });

  it('keep the larger window a Modelfile gives the model, within what it was trained for', async () => {
    const { server, harness } = await ollamaHarness(32768, { modelfileNumCtx: { 'scripted-model': 65536 } });
    server.enqueue(textTurn('Hello.'));
    await turn(harness, 'Hi');
    const chat = server.requests.find((request) => request.path === '/api/chat');
    expect(chat?.body['options']).toMatchObject({ num_ctx: 32768 });
  });
});
