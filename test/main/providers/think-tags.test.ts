import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ModelStreamEvent } from '../../../src/main/agent/ports/model-provider';
import { OllamaProvider } from '../../../src/main/providers/ollama-provider';
import { OpenAICompatibleProvider } from '../../../src/main/providers/openai-compatible-provider';
import { ThinkTagSplitter, type ContentPiece } from '../../../src/main/providers/think-tags';
import { ScriptedModelServer } from '../../scripted-model-server';

/** Feeds `text` cut into pieces at `cuts`, and joins what comes out by kind. */
function split(text: string, cuts: readonly number[]): { reasoning: string; text: string } {
  const splitter = new ThinkTagSplitter();
  const pieces: ContentPiece[] = [];
  let from = 0;
  for (const cut of [...cuts, text.length]) {
    pieces.push(...splitter.push(text.slice(from, cut)));
    from = cut;
  }
  pieces.push(...splitter.end());
  const of = (kind: ContentPiece['kind']): string =>
    pieces
      .filter((piece) => piece.kind === kind)
      .map((piece) => piece.text)
      .join('');
  return { reasoning: of('reasoning'), text: of('text') };
}

describe('reasoning written inline as <think>…</think>', () => {
  const whole = '<think>\nThe user wants a haiku.\n</think>\n\nOld pond, a frog jumps.';

  it('is told apart from the answer, whole or cut at any character', () => {
    const expected = { reasoning: '\nThe user wants a haiku.\n', text: 'Old pond, a frog jumps.' };
    expect(split(whole, [])).toEqual(expected);
    for (let cut = 1; cut < whole.length; cut += 1) expect(split(whole, [cut]), `cut at ${cut}`).toEqual(expected);
    // One character at a time, as some servers stream.
    expect(
      split(
        whole,
        Array.from({ length: whole.length - 1 }, (_, index) => index + 1),
      ),
    ).toEqual(expected);
  });

  it('an empty pair at the start leaves just the answer; an answer that mentions the tag keeps it', () => {
    expect(split('<think></think>\n\nHello.', [3, 9])).toEqual({ reasoning: '', text: 'Hello.' });
    expect(split('Use <think> tags like this: <think>x</think>', [5])).toEqual({
      reasoning: '',
      text: 'Use <think> tags like this: <think>x</think>',
    });
    expect(split('  \n<think>why</think>because', [2, 6])).toEqual({ reasoning: 'why', text: 'because' });
  });

  it('a tag that never closes leaves the rest as reasoning, and a lone "<" is answer text', () => {
    expect(split('<think>still thinking when the answer was cut', [10])).toEqual({
      reasoning: 'still thinking when the answer was cut',
      text: '',
    });
    expect(split('<', [])).toEqual({ reasoning: '', text: '<' });
    expect(split('<thi', [])).toEqual({ reasoning: '', text: '<thi' });
  });
});

describe('inline reasoning through the providers, over real HTTP', () => {
  let server: ScriptedModelServer;
  beforeAll(async () => {
    server = await ScriptedModelServer.start({ models: [{ id: 'qwq', contextLength: 32768 }] });
  });
  afterAll(async () => {
    await server.close();
  });

  const collect = async (stream: AsyncIterable<ModelStreamEvent>): Promise<{ reasoning: string; text: string }> => {
    let reasoning = '';
    let text = '';
    for await (const event of stream) {
      if (event.type === 'reasoning_delta') reasoning += event.text;
      if (event.type === 'text_delta') text += event.text;
    }
    return { reasoning, text };
  };
  const turn = { steps: [{ kind: 'text' as const, text: '<think>Count the legs.</think>\n\nA spider has eight legs.', chunkSize: 5 }] };
  const request = { model: 'qwq', messages: [{ role: 'user' as const, content: 'How many legs?' }] };

  it('an OpenAI-compatible stream with the reasoning in the content shows it as reasoning', async () => {
    server.enqueue(turn);
    const provider = new OpenAICompatibleProvider({ baseUrl: server.openaiBaseUrl });
    expect(await collect(provider.stream(request, new AbortController().signal))).toEqual({
      reasoning: 'Count the legs.',
      text: 'A spider has eight legs.',
    });
  });

  it("Ollama's own API with the reasoning in the content shows it as reasoning too", async () => {
    server.enqueue(turn);
    const provider = new OllamaProvider({ baseUrl: server.ollamaBaseUrl });
    expect(await collect(provider.stream(request, new AbortController().signal))).toEqual({
      reasoning: 'Count the legs.',
      text: 'A spider has eight legs.',
    });
  });
});
