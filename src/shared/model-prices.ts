/*
 * The prices a person sets for a model's tokens, in US dollars per million: the prompt, the answer, and the prompt
 * tokens a server's cache read or wrote. 0 is a price (a model on the person's own machine), so its calls count as
 * priced.
 */

import { z } from 'zod';

/** The highest price taken, per million tokens: far above any model sold, low enough to catch a slip of the keyboard. */
export const maxPricePerMillion = 10_000;

const perMillion = (name: string) =>
  z
    .number()
    .finite(`${name} is a number.`)
    .min(0, `${name} cannot be below 0.`)
    .max(maxPricePerMillion, `${name} is at most $${maxPricePerMillion.toLocaleString('en-US')} per million tokens.`);

/**
 * A model's prices per million tokens. The cache's prices are optional: where one is not set, those tokens are billed at
 * the input price, so the figure is never below what the prompt would cost without a cache.
 */
export const priceFiguresSchema = z.object({
  input: perMillion('The input price'),
  output: perMillion('The output price'),
  /** Prompt tokens the server read from its cache; null: at the input price. */
  cacheRead: perMillion('The cache read price').nullable().default(null),
  /** Prompt tokens the server wrote to a cache that bills for writing; null: at the input price. */
  cacheWrite: perMillion('The cache write price').nullable().default(null),
});
export type PriceFigures = z.infer<typeof priceFiguresSchema>;

/** A call's tokens as a price is applied to them: the whole prompt, and of it what the cache read and wrote. */
export interface PricedTokens {
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly cacheReadTokens?: number;
  readonly cacheWriteTokens?: number;
}

/** What a call costs at a person's prices, in US dollars. */
export function costAtPrice(price: PriceFigures, tokens: PricedTokens): number {
  const read = tokens.cacheReadTokens ?? 0;
  const written = tokens.cacheWriteTokens ?? 0;
  const uncached = Math.max(0, tokens.inputTokens - read - written);
  const input = uncached * price.input + read * (price.cacheRead ?? price.input) + written * (price.cacheWrite ?? price.input);
  return (input + tokens.outputTokens * price.output) / 1_000_000;
}
