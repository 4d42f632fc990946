import { describe, expect, it } from 'vitest';
import { costOf, priceFor } from '../../../../src/main/agent/ports/accounting';
import { modelPriceSchema, type ModelPrice } from '../../../../src/shared/domain';
import { channels } from '../../../../src/shared/ipc/contract';
import type { RuntimeEvent } from '../../../../src/shared/events';
import { textTurn, type ScriptedModelServer } from '../../../scripted-model-server';
import { useHarness, type Harness } from '../harness';

type CallFinished = Extract<RuntimeEvent, { type: 'model_call_finished' }>;

const price = (figures: Partial<ModelPrice> = {}): ModelPrice =>
  modelPriceSchema.parse({ providerId: 'p1', model: 'qwen3-coder', input: 2, output: 8, ...figures });

describe('prices the person sets per model', () => {
  const tokens = { inputTokens: 12_000, outputTokens: 1_000, cacheReadTokens: 10_000, cacheWriteTokens: 1_000 };

  it('prices a call of an openai-compatible model on any endpoint, which has no price of its own', () => {
    expect(costOf('openai-compatible', 'https://models.example.com/v1', 'qwen3-coder', tokens)).toBeNull();
    // Cache prices left blank bill those tokens at the input price.
    expect(costOf('openai-compatible', 'https://models.example.com/v1', 'qwen3-coder', tokens, price())).toBeCloseTo(
      (12_000 * 2 + 1_000 * 8) / 1_000_000,
      12,
    );
    const withCache = price({ cacheRead: 0.2, cacheWrite: 2.5 });
    expect(costOf('openai-compatible', 'https://models.example.com/v1', 'qwen3-coder', tokens, withCache)).toBeCloseTo(
      (1_000 * 2 + 10_000 * 0.2 + 1_000 * 2.5 + 1_000 * 8) / 1_000_000,
      12,
    );
  });

  it('wins over the prices the app knows, and 0 is a price', () => {
    expect(costOf('anthropic', 'https://api.anthropic.com', 'claude-sonnet-4-5', tokens, price({ input: 1, output: 1 }))).toBeCloseTo(
      13_000 / 1_000_000,
      12,
    );
    expect(costOf('openai-compatible', 'http://127.0.0.1:1234/v1', 'qwen3-coder', tokens, price({ input: 3, output: 3 }))).toBeGreaterThan(
      0,
    );
    expect(costOf('openai-compatible', 'http://192.168.1.20:8080/v1', 'qwen3-coder', tokens, price({ input: 0, output: 0 }))).toBe(0);
  });

  it('is found by endpoint and model', () => {
    const prices = [price(), price({ providerId: 'p2', input: 5 })];
    expect(priceFor(prices, { providerId: 'p2', model: 'qwen3-coder' })?.input).toBe(5);
    expect(priceFor(prices, { providerId: 'p1', model: 'other' })).toBeNull();
    expect(priceFor(undefined, { providerId: 'p1', model: 'qwen3-coder' })).toBeNull();
  });

  it('refuses a price below 0 or past $10,000 per million tokens, and a model priced twice in one update', () => {
    expect(() => price({ input: -1 })).toThrow(/The input price cannot be below 0/);
    expect(() => price({ cacheRead: 20_000 })).toThrow(/The cache read price is at most \$10,000/);
    const update = channels['settings:update'].input;
    expect(update.safeParse({ modelPrices: [price()] }).success).toBe(true);
    const twice = update.safeParse({ modelPrices: [price(), price({ input: 3 })] });
    expect(twice.success).toBe(false);
    expect(twice.error?.issues[0]?.message).toMatch(/A model has one price/);
  });
});

describe('the cost of a turn’s calls', () => {
  let server: ScriptedModelServer;
  let harness: Harness;
  useHarness({ server: (started) => (server = started), harness: (made) => (harness = made) });
  const callsOf = (sessionId: string): CallFinished[] =>
    harness.store
      .journal(sessionId)
      .map((entry) => entry.event)
      .filter((event): event is CallFinished => event.type === 'model_call_finished');

  it('uses the price set for the scripted model, and counts as nothing the calls of an endpoint with no price', async () => {
    // The scripted server is on this machine: its calls cost nothing until the person prices the model.
    server.enqueue(textTurn('Free.'));
    harness.runtime.send(harness.sessionId, 'First');
    await harness.runtime.whenIdle(harness.sessionId);
    expect(callsOf(harness.sessionId).at(-1)?.costUsd).toBe(0);

    const providerId = harness.settings.get().providers[0]?.id ?? '';
    harness.settings.set({
      ...harness.settings.get(),
      modelPrices: [modelPriceSchema.parse({ providerId, model: 'scripted-model', input: 1_000, output: 2_000 })],
    });
    server.enqueue({ ...textTurn('Priced.'), usage: { inputTokens: 300, outputTokens: 20 } });
    harness.runtime.send(harness.sessionId, 'Second');
    await harness.runtime.whenIdle(harness.sessionId);
    const priced = callsOf(harness.sessionId).at(-1);
    expect(priced?.costUsd).toBeCloseTo((300 * 1_000 + 20 * 2_000) / 1_000_000, 12);
    const view = harness.view();
    const turnId = view.messages.at(-1)?.turnId ?? '';
    expect(view.turns[turnId]).toMatchObject({ modelCalls: 1, unpricedCalls: 0, inputTokens: 300, outputTokens: 20, end: 'completed' });
    expect(view.turns[turnId]?.costUsd).toBeCloseTo(0.34, 12);

    // The same server reached at an address the app does not take for this machine: a server elsewhere, with no price.
    const elsewhere = harness.settings.get().providers[0]?.baseUrl.replace('127.0.0.1', '0.0.0.0') ?? '';
    const saved = harness.settings.get();
    harness.settings.set({
      ...saved,
      providers: [...saved.providers, { id: 'elsewhere', kind: 'openai-compatible', name: 'Elsewhere', baseUrl: elsewhere }],
    });
    harness.store.create({
      id: 's2',
      title: 'Elsewhere',
      workspacePath: null,
      model: { providerId: 'elsewhere', model: 'scripted-model' },
      autonomy: 'L1',
      createdAt: harness.clock.now(),
    });
    server.enqueue(textTurn('Unpriced.'), textTurn('Unpriced again.'));
    harness.runtime.send('s2', 'One');
    await harness.runtime.whenIdle('s2');
    harness.runtime.send('s2', 'Two');
    await harness.runtime.whenIdle('s2');
    expect(callsOf('s2').map((call) => call.costUsd)).toEqual([null, null]);
    const unpriced = harness.view('s2');
    expect(unpriced.usage).toMatchObject({ unpricedCalls: 2, costUsd: 0 });
    expect(Object.values(unpriced.turns).map((turn) => turn.unpricedCalls)).toEqual([1, 1]);
    expect(harness.accounting.totals('s2')).toMatchObject({ costUsd: null, pricedCostUsd: 0, unpricedCalls: 2 });
  });
});
