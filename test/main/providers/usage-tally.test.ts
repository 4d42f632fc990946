import { describe, expect, it } from 'vitest';
import { UsageTally, timingsOf } from '../../../src/main/providers/usage-tally';

const eventOf = (tally: UsageTally) => [...tally.event()];

describe('the usage of one answer', () => {
  it('says how much of the prompt came from the cache when the usage has cached_tokens', () => {
    const tally = new UsageTally();
    tally.report({ promptTokens: 1180, completionTokens: 12, cachedTokens: 1152 });
    expect(eventOf(tally)).toEqual([{ type: 'usage', inputTokens: 1180, outputTokens: 12, cacheReadTokens: 1152 }]);
  });

  it('says nothing about the cache when the server does not', () => {
    const tally = new UsageTally();
    tally.report({ promptTokens: 40, completionTokens: 3 });
    expect(eventOf(tally)).toEqual([{ type: 'usage', inputTokens: 40, outputTokens: 3 }]);
  });

  it('says a cache of nothing when the server says none of the prompt was cached', () => {
    const tally = new UsageTally();
    tally.report({ promptTokens: 40, completionTokens: 3, cachedTokens: 0 });
    expect(eventOf(tally)).toEqual([{ type: 'usage', inputTokens: 40, outputTokens: 3, cacheReadTokens: 0 }]);
  });

  it('keeps the last report of each figure, and a later zero does not erase a cached count', () => {
    const tally = new UsageTally();
    tally.report({ promptTokens: 300, completionTokens: 1, cachedTokens: 256 });
    tally.report({ promptTokens: 300, completionTokens: 9, cachedTokens: 288 });
    tally.report({ promptTokens: 0, completionTokens: 12, cachedTokens: 0 });
    expect(eventOf(tally)).toEqual([{ type: 'usage', inputTokens: 300, outputTokens: 12, cacheReadTokens: 288 }]);
  });

  it('takes the whole prompt, the answer and the cached part from llama.cpp’s timings when there is no usage', () => {
    const tally = new UsageTally();
    tally.reportTimings({ cacheN: 1498, promptN: 32, predictedN: 9 });
    expect(eventOf(tally)).toEqual([{ type: 'usage', inputTokens: 1530, outputTokens: 9, cacheReadTokens: 1498 }]);
  });

  it('takes the counts from the usage and the cached part from the timings when the usage has no details', () => {
    const tally = new UsageTally();
    tally.report({ promptTokens: 1530, completionTokens: 9 });
    tally.reportTimings({ cacheN: 1498, promptN: 40, predictedN: 11 });
    expect(eventOf(tally)).toEqual([{ type: 'usage', inputTokens: 1530, outputTokens: 9, cacheReadTokens: 1498 }]);
  });

  it('never says more was cached than the whole prompt', () => {
    const tally = new UsageTally();
    tally.report({ promptTokens: 100, completionTokens: 2, cachedTokens: 128 });
    expect(eventOf(tally)).toEqual([{ type: 'usage', inputTokens: 100, outputTokens: 2, cacheReadTokens: 100 }]);
  });

  it('says nothing when nothing was reported', () => {
    expect(eventOf(new UsageTally())).toEqual([]);
  });
});

describe('llama.cpp’s timings in a chunk', () => {
  it('reads the counts and leaves out what is missing or not a count', () => {
    expect(timingsOf({ timings: { cache_n: 12, prompt_n: 5, prompt_ms: 10.5, predicted_n: 2 } })).toEqual({
      cacheN: 12,
      promptN: 5,
      predictedN: 2,
    });
    expect(timingsOf({ timings: { cache_n: 'many', prompt_n: -1 } })).toEqual({
      cacheN: undefined,
      promptN: undefined,
      predictedN: undefined,
    });
  });

  it('finds none in a chunk without them', () => {
    expect(timingsOf({ choices: [] })).toBeNull();
    expect(timingsOf(null)).toBeNull();
  });
});
