import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChatMessage } from '../../../src/main/agent/ports/model-provider';
import type { LocalRuntimeProvider } from '../../../src/main/runtime/local-runtime-provider';
import { runtimeReplySchema } from '../../../src/main/runtime/runtime-protocol';
import { TinyModels, collect, runtimeProvider, testRuntimeWith, textOf } from './runtime-fixture';

/*
 * The built-in runtime keeps one evaluated prompt per line of requests (a session's cache key), so a session's next
 * step reads only what it added. What node-llama-cpp's token meter counted as read is heard on the wire between the app
 * and the runtime's process; what the cache saved is the usage the provider streams.
 */

const models = new TinyModels();
const providers: LocalRuntimeProvider[] = [];

interface Step {
  readonly text: string;
  /** The whole prompt, in tokens. */
  readonly inputTokens: number;
  /** The beginning of the prompt taken from the sequence, as the provider's usage says. */
  readonly cacheReadTokens: number;
  /** The prompt tokens node-llama-cpp's meter counted as read (the last one it counts as output). */
  readonly metered: number;
}

/** A provider on a runtime that keeps at most `sequences` prompts, and a function to run one step of a session. */
function runtimeKeeping(sequences: number): (key: string, messages: readonly ChatMessage[]) => Promise<Step> {
  const metered: number[] = [];
  const launch = testRuntimeWith({ WORKBENCH_RUNTIME_SEQUENCES: String(sequences) });
  const { provider } = runtimeProvider(models, {}, () => {
    const channel = launch();
    channel.onMessage((raw) => {
      const reply = runtimeReplySchema.parse(raw);
      if (reply.type !== 'events') return;
      for (const event of reply.events) if (event.type === 'usage') metered.push(event.meteredInputTokens);
    });
    return channel;
  });
  providers.push(provider);
  return async (key, messages) => {
    const events = await collect(
      provider.stream({ model: 'hello', system: systems[key], messages, cacheKey: key, contextWindow: 4096 }, new AbortController().signal),
    );
    expect(events.at(-1)).toEqual({ type: 'done', stopReason: 'end_turn' });
    const usage = events.find((event) => event.type === 'usage');
    if (usage?.type !== 'usage' || usage.cacheReadTokens === undefined) throw new Error('no usage with the cache read');
    return { text: textOf(events), inputTokens: usage.inputTokens, cacheReadTokens: usage.cacheReadTokens, metered: metered.at(-1) ?? -1 };
  };
}

/* Sessions whose prompts differ from their first word: long enough that reading one again is most of the work. */
const systems: Record<string, string> = {
  ada: 'Ada keeps the notes of the garden project in order. '.repeat(12),
  bob: 'Bob answers questions about the kitchen plans briefly. '.repeat(12),
  cy: 'Cy reviews the budget of the town library every week. '.repeat(12),
};

/** A session's conversation after `steps` answers, ending with the person's next message. */
function conversation(steps: number): ChatMessage[] {
  const messages: ChatMessage[] = [{ role: 'user', content: 'Say hello.' }];
  for (let step = 1; step < steps; step++) {
    messages.push({ role: 'assistant', content: 'Hello world.' }, { role: 'user', content: `Again, time ${step + 1}.` });
  }
  return messages;
}

/** The step read its whole prompt but what the sequence held: the meter agrees with the usage, to the token. */
function expectReadOnlyTheRest(step: Step): void {
  expect(step.metered + 1).toBe(step.inputTokens - step.cacheReadTokens);
}

beforeAll(() => {
  models.add('hello', { says: ['Hello', ' world', '.'], name: 'Hello model' });
});

afterAll(() => {
  for (const provider of providers) provider.dispose();
  models.remove();
});

describe('the built-in runtime with room for two sessions', () => {
  let step: (key: string, messages: readonly ChatMessage[]) => Promise<Step>;
  beforeAll(() => {
    step = runtimeKeeping(2);
  });

  it("reads only the messages a session's second step adds", async () => {
    const first = await step('ada', conversation(1));
    expect(first.text).toBe('Hello world.');
    expect(first.inputTokens).toBeGreaterThan(500);
    expect(first.cacheReadTokens).toBe(0);
    expectReadOnlyTheRest(first);

    const second = await step('ada', conversation(2));
    expect(second.text).toBe('Hello world.');
    // The whole first prompt was kept; only the answer and the new message were read.
    expect(second.cacheReadTokens).toBeGreaterThanOrEqual(first.inputTokens);
    expect(second.metered).toBeLessThan(60);
    expectReadOnlyTheRest(second);
  });

  it('keeps the prompt of each of two sessions taking turns', async () => {
    const bobFirst = await step('bob', conversation(1));
    // A sequence of its own, fresh, rather than Ada's taken over.
    expect(bobFirst.cacheReadTokens).toBe(0);
    const adaThird = await step('ada', conversation(3));
    const bobSecond = await step('bob', conversation(2));
    for (const later of [adaThird, bobSecond]) {
      expect(later.text).toBe('Hello world.');
      expect(later.metered).toBeLessThan(60);
      expect(later.cacheReadTokens).toBeGreaterThan(later.inputTokens - 60);
      expectReadOnlyTheRest(later);
    }
  });

  it('gives a third session the sequence used longest ago, and keeps the other', async () => {
    // Bob spoke last, Ada before him: Cy takes Ada's sequence.
    const cyFirst = await step('cy', conversation(1));
    expect(cyFirst.text).toBe('Hello world.');
    const bobThird = await step('bob', conversation(3));
    expect(bobThird.metered).toBeLessThan(60);
    const adaFourth = await step('ada', conversation(4));
    expect(adaFourth.text).toBe('Hello world.');
    expect(adaFourth.cacheReadTokens).toBeLessThan(adaFourth.inputTokens / 10);
    expectReadOnlyTheRest(adaFourth);
  });
});

describe('the built-in runtime with room for one session', () => {
  it('gives the sequence to the other session, and the first reads its prompt again and still answers', async () => {
    const step = runtimeKeeping(1);
    const adaFirst = await step('ada', conversation(1));
    const bobFirst = await step('bob', conversation(1));
    expect(bobFirst.text).toBe('Hello world.');
    const adaSecond = await step('ada', conversation(2));
    expect(adaSecond.text).toBe('Hello world.');
    // Only the chat format's opening, which both prompts share, was still there.
    expect(adaSecond.cacheReadTokens).toBeLessThan(adaFirst.inputTokens / 10);
    expect(adaSecond.metered).toBeGreaterThan(adaFirst.inputTokens - 60);
    expectReadOnlyTheRest(adaSecond);
  });
});
