import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ModelStreamEvent } from '../../../src/main/agent/ports/model-provider';
import { OllamaProvider } from '../../../src/main/providers/ollama-provider';
import { OpenAICompatibleProvider } from '../../../src/main/providers/openai-compatible-provider';
import { ThinkTagSplitter, type ContentPiece, type ThinkTagOptions } from '../../../src/main/providers/think-tags';
import { ScriptedModelServer } from '../../scripted-model-server';

/** Feeds `text` cut into pieces at `cuts`, and joins what comes out by kind. */
function split(text: string, cuts: readonly number[], options: ThinkTagOptions = {}): { reasoning: string; text: string } {
  const splitter = new ThinkTagSplitter(options);
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

/** Every way to cut `text` in two, and one character at a time. */
const cutsOf = (text: string): number[][] => [
  [],
  ...Array.from({ length: text.length - 1 }, (_, index) => [index + 1]),
  Array.from({ length: text.length - 1 }, (_, index) => index + 1),
];

describe('reasoning the prompt opened, of which only </think> streams', () => {
  const whole = 'The user wants legs counted.\nEight.\n</think>\n\nA spider has eight legs.';

  it('is reasoning up to the </think>, and the answer after it, whole or cut at any character', () => {
    const expected = { reasoning: 'The user wants legs counted.\nEight.\n', text: 'A spider has eight legs.' };
    for (const cuts of cutsOf(whole)) expect(split(whole, cuts, { opened: true }), `cut at ${cuts.join(',')}`).toEqual(expected);
  });

  it('streams the reasoning as it comes, holding back only what may be the start of </think>', () => {
    const splitter = new ThinkTagSplitter({ opened: true });
    expect(splitter.push('Counting the ')).toEqual([{ kind: 'reasoning', text: 'Counting the ' }]);
    expect(splitter.push('legs.</th')).toEqual([{ kind: 'reasoning', text: 'legs.' }]);
    expect(splitter.push('ink>Eight.')).toEqual([{ kind: 'text', text: 'Eight.' }]);
  });

  it('leaves a literal </think> later in the answer as text, as after a complete block', () => {
    const answer = 'Close it with </think> and go on.';
    expect(split(`Why.</think>\n${answer}`, [6, 20], { opened: true })).toEqual({ reasoning: 'Why.', text: answer });
    expect(split(`<think>Why.</think>\n${answer}`, [6, 20])).toEqual({ reasoning: 'Why.', text: answer });
    // A model that writes the opening tag itself, though the prompt opened one, is read as if it had not.
    expect(split(`<think>Why.</think>\n${answer}`, [3], { opened: true })).toEqual({ reasoning: 'Why.', text: answer });
  });
});

describe('an answer with no think tags', () => {
  const answer = 'A spider has eight legs, and an insect six.';

  it('comes out of each piece at once and unchanged', () => {
    const splitter = new ThinkTagSplitter();
    for (let from = 0; from < answer.length; from += 4) {
      const piece = answer.slice(from, from + 4);
      expect(splitter.push(piece)).toEqual([{ kind: 'text', text: piece }]);
    }
    expect(splitter.end()).toEqual([]);
  });

  it('is told as no evidence either way', () => {
    const told: boolean[] = [];
    expect(split(answer, [5, 9], { onEvidence: (opens) => told.push(opens) })).toEqual({ reasoning: '', text: answer });
    expect(told).toEqual([]);
  });
});

describe('what a response shows of how the model begins its answers', () => {
  const evidence = (
    text: string,
    cuts: readonly number[],
    opened = false,
  ): { split: { reasoning: string; text: string }; told: boolean[] } => {
    const told: boolean[] = [];
    return { split: split(text, cuts, { opened, onEvidence: (opens) => told.push(opens) }), told };
  };

  it('a </think> before any <think> is left as text and told as evidence that the prompt opens the block', () => {
    const whole = 'Counting.</think>\n\nEight legs.';
    for (const cuts of cutsOf(whole)) expect(evidence(whole, cuts)).toEqual({ split: { reasoning: '', text: whole }, told: [true] });
  });

  it('a block the response opened and closed, then a literal </think>, tells nothing', () => {
    expect(evidence('<think>a</think>b</think>c', [9]).told).toEqual([]);
    expect(evidence('Use <think> then </think>.', [12]).told).toEqual([]);
  });

  it('a response that began inside reasoning and never closed it is told as evidence against, an empty one as nothing', () => {
    expect(evidence('Still counting when it was cut', [4], true)).toEqual({
      split: { reasoning: 'Still counting when it was cut', text: '' },
      told: [false],
    });
    expect(evidence('', [], true).told).toEqual([]);
    expect(evidence('Counting.</think>Eight.', [], true).told).toEqual([]);
  });
});

describe('inline reasoning through the providers, over real HTTP', () => {
  let server: ScriptedModelServer;
  beforeAll(async () => {
    server = await ScriptedModelServer.start({
      models: [
        { id: 'qwq', contextLength: 32768 },
        // A model whose template opens the block in the prompt, which Ollama does not parse (it is not listed as thinking).
        { id: 'qwq-opened', contextLength: 32768, chatTemplate: '{{ .Prompt }}<|im_start|>assistant\n<think>\n' },
      ],
    });
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

  const opened = { steps: [{ kind: 'text' as const, text: 'Count the legs.</think>\n\nA spider has eight legs.', chunkSize: 5 }] };

  it("Ollama's own API shows reasoning the template opened as reasoning from the first answer, the template saying so", async () => {
    server.enqueue(opened);
    const provider = new OllamaProvider({ baseUrl: server.ollamaBaseUrl });
    expect(await collect(provider.stream({ ...request, model: 'qwq-opened' }, new AbortController().signal))).toEqual({
      reasoning: 'Count the legs.',
      text: 'A spider has eight legs.',
    });
  });

  it('an OpenAI-compatible server that says nothing of its template: learnt from an answer that closed a block it never opened, unlearnt from one that never closed', async () => {
    const provider = new OpenAICompatibleProvider({ baseUrl: server.openaiBaseUrl });
    server.enqueue(opened);
    expect(await collect(provider.stream(request, new AbortController().signal))).toEqual({
      reasoning: '',
      text: 'Count the legs.</think>\n\nA spider has eight legs.',
    });
    server.enqueue(opened);
    expect(await collect(provider.stream(request, new AbortController().signal))).toEqual({
      reasoning: 'Count the legs.',
      text: 'A spider has eight legs.',
    });
    // An answer without tags, after that: the model began inside reasoning it never closed; the next answer is read
    // as an answer again.
    server.enqueue({ steps: [{ kind: 'text' as const, text: 'Eight.', chunkSize: 3 }] });
    expect(await collect(provider.stream(request, new AbortController().signal))).toEqual({ reasoning: 'Eight.', text: '' });
    server.enqueue({ steps: [{ kind: 'text' as const, text: 'Eight.', chunkSize: 3 }] });
    expect(await collect(provider.stream(request, new AbortController().signal))).toEqual({ reasoning: '', text: 'Eight.' });
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
