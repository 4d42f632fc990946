import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ModelStreamEvent } from '../../../src/main/agent/ports/model-provider';
import type { LocalRuntimeProvider } from '../../../src/main/runtime/local-runtime-provider';
import { TinyModels, collect, runtimeProvider } from './runtime-fixture';

/*
 * Reasoning on the built-in runtime that node-llama-cpp's chat format does not know as a segment of its own: a model
 * that writes the whole `<think>` block, and one whose answers close a block its format never opened, as a model trained
 * to answer after a template's `<think>` does.
 */

const models = new TinyModels();
let provider: LocalRuntimeProvider;

const script = ['Pondering', ' the', ' greeting', '</think>', '\n\nHello', ' there.'];

const split = (events: readonly ModelStreamEvent[]): { reasoning: string; text: string } => ({
  reasoning: events.map((event) => (event.type === 'reasoning_delta' ? event.text : '')).join(''),
  text: events.map((event) => (event.type === 'text_delta' ? event.text : '')).join(''),
});
const ask = async (model: string): Promise<{ reasoning: string; text: string }> =>
  split(await collect(provider.stream({ model, messages: [{ role: 'user', content: 'Say hello.' }] }, new AbortController().signal)));

beforeAll(() => {
  models.add('closer', { says: script });
  models.add('thinker', { says: ['<think>', ...script] });
  ({ provider } = runtimeProvider(models));
});

afterAll(() => {
  provider.dispose();
  models.remove();
});

describe('reasoning the built-in runtime leaves in the text', () => {
  it('is told apart from the first answer when the model writes the whole block', async () => {
    expect(await ask('thinker')).toEqual({ reasoning: 'Pondering the greeting', text: 'Hello there.' });
  });

  it('is reasoning from the second answer of a model that closed a block its format never opened', async () => {
    // The first answer streamed as text before its `</think>` came; it is left as it was.
    expect(await ask('closer')).toEqual({ reasoning: '', text: 'Pondering the greeting</think>\n\nHello there.' });
    expect(await ask('closer')).toEqual({ reasoning: 'Pondering the greeting', text: 'Hello there.' });
  });
});
