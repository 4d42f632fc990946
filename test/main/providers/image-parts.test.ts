import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ModelProvider, ModelRequest } from '../../../src/main/agent/ports/model-provider';
import { AnthropicProvider } from '../../../src/main/providers/anthropic-provider';
import { OllamaProvider } from '../../../src/main/providers/ollama-provider';
import { OpenAICompatibleProvider } from '../../../src/main/providers/openai-compatible-provider';
import { ScriptedModelServer, textTurn } from '../../scripted-model-server';
import { tinyPng } from '../../tiny-png';

const data = tinyPng.toString('base64');
const request: ModelRequest = {
  model: 'seeing-model',
  messages: [
    {
      role: 'user',
      content: 'What is in <attached_image path="logo.png" />?',
      images: [{ path: 'logo.png', mediaType: 'image/png', data }],
    },
  ],
};

async function drain(provider: ModelProvider): Promise<void> {
  for await (const event of provider.stream(request, AbortSignal.timeout(10_000)))
    if (event.type === 'error') throw new Error(event.error.message);
}

describe('images in each provider’s wire format', () => {
  let server: ScriptedModelServer;
  beforeAll(async () => {
    server = await ScriptedModelServer.start({
      models: [
        { id: 'seeing-model', contextLength: 32_768, vision: true },
        { id: 'text-model', contextLength: 32_768 },
      ],
    });
  });
  afterAll(() => server.close());
  beforeEach(() => {
    server.reset();
    server.enqueue(textTurn('A logo.'));
  });
  const userMessage = (): Record<string, unknown> =>
    (server.requests[0]?.body.messages as Array<Record<string, unknown>>).filter((message) => message.role === 'user')[0] ?? {};

  it('sends Anthropic an image block with a base64 source before the text', async () => {
    await drain(new AnthropicProvider({ baseUrl: server.anthropicBaseUrl, apiKey: 'test-key' }));
    expect(userMessage().content).toEqual([
      { type: 'image', source: { type: 'base64', media_type: 'image/png', data } },
      // The conversation's last block carries the prompt cache's breakpoint.
      { type: 'text', text: 'What is in <attached_image path="logo.png" />?', cache_control: { type: 'ephemeral' } },
    ]);
  });

  it('sends an OpenAI-compatible server an image_url part with a data URL', async () => {
    await drain(new OpenAICompatibleProvider({ baseUrl: server.openaiBaseUrl }));
    expect(userMessage().content).toEqual([
      { type: 'text', text: 'What is in <attached_image path="logo.png" />?' },
      { type: 'image_url', image_url: { url: `data:image/png;base64,${data}` } },
    ]);
  });

  it('sends Ollama the image in the message’s images array', async () => {
    await drain(new OllamaProvider({ baseUrl: server.ollamaBaseUrl }));
    expect(userMessage()).toMatchObject({ content: 'What is in <attached_image path="logo.png" />?', images: [data] });
  });
});

describe('whether a model takes images', () => {
  let server: ScriptedModelServer;
  beforeAll(async () => {
    server = await ScriptedModelServer.start({
      personality: 'llama.cpp',
      models: [
        { id: 'seeing-model', contextLength: 32_768, vision: true },
        { id: 'text-model', contextLength: 32_768 },
      ],
    });
  });
  afterAll(() => server.close());
  const signal = (): AbortSignal => AbortSignal.timeout(10_000);

  it('says an Ollama model with the vision capability takes images', async () => {
    expect(await new OllamaProvider({ baseUrl: server.ollamaBaseUrl }).takesImages('seeing-model', signal())).toBe(true);
  });

  it('says an Ollama model without the vision capability does not', async () => {
    expect(await new OllamaProvider({ baseUrl: server.ollamaBaseUrl }).takesImages('text-model', signal())).toBe(false);
  });

  it('says an OpenAI-compatible model takes images only when its model entry says so', async () => {
    const provider = new OpenAICompatibleProvider({ baseUrl: server.openaiBaseUrl });
    expect([await provider.takesImages('seeing-model', signal()), await provider.takesImages('text-model', signal())]).toEqual([
      true,
      false,
    ]);
  });

  it('says an Anthropic model takes images', async () => {
    expect(await new AnthropicProvider({ baseUrl: server.anthropicBaseUrl, apiKey: 'k' }).takesImages()).toBe(true);
  });
});
