/*
 * Model and tool call records, the accounting store's interface, and what a model call costs.
 */
import { BoundedMap } from '../../../shared/bounded-map';
import type { ModelChoice, ModelPrice, ProviderKind } from '../../../shared/domain';
import { costAtPrice, type PriceFigures } from '../../../shared/model-prices';
import type { ToolCallStatus } from '../../../shared/events';
import type { ModelStreamEvent } from './model-provider';

/**
 * A model call's tokens as its `usage` event gave them: the whole prompt as `inputTokens`, and of those, the ones the
 * server read from its prompt cache and the ones it wrote to a cache that bills for writing, where it said.
 */
export interface CallTokens {
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly cacheReadTokens?: number;
  readonly cacheWriteTokens?: number;
}

/** The tokens a `usage` event gives, without the event's type. */
export function tokensOf(event: Extract<ModelStreamEvent, { type: 'usage' }>): CallTokens {
  return {
    inputTokens: event.inputTokens,
    outputTokens: event.outputTokens,
    ...(event.cacheReadTokens === undefined ? {} : { cacheReadTokens: event.cacheReadTokens }),
    ...(event.cacheWriteTokens === undefined ? {} : { cacheWriteTokens: event.cacheWriteTokens }),
  };
}

export interface ModelCallRecord {
  readonly id: string;
  readonly sessionId: string;
  readonly turnId: string;
  readonly providerId: string;
  readonly providerKind: ProviderKind;
  readonly model: string;
  /** The whole prompt, cached part included. */
  readonly inputTokens: number;
  readonly outputTokens: number;
  /** Of the prompt, the tokens read from the server's cache; absent when the server did not say. */
  readonly cacheReadTokens?: number;
  /** Of the prompt, the tokens written to a cache that bills for writing (Anthropic's); absent when the server did not say. */
  readonly cacheWriteTokens?: number;
  readonly latencyMs: number;
  readonly costUsd: number | null;
  readonly status: 'completed' | 'failed' | 'cancelled';
  readonly at: number;
}

export interface ToolCallRecord {
  readonly id: string;
  readonly sessionId: string;
  readonly turnId: string;
  readonly tool: string;
  readonly input: string;
  /** The whole output, up to the disk cap. */
  readonly output: string;
  readonly outputBytes: number;
  readonly truncated: boolean;
  readonly status: ToolCallStatus;
  readonly latencyMs: number;
  readonly at: number;
}

export interface SessionTotals {
  readonly modelCalls: number;
  /** Every prompt's tokens, cached parts included. */
  readonly inputTokens: number;
  readonly outputTokens: number;
  /** Of those, the tokens read from a server's cache (calls whose server did not say count none). */
  readonly cacheReadTokens: number;
  /** Of those, the tokens written to a cache that bills for writing. */
  readonly cacheWriteTokens: number;
  readonly modelMs: number;
  /** The largest prompt of a model call, as the server counted it: how close the session came to the window. */
  readonly largestPromptTokens: number;
  /** Null when some call's price is unknown. */
  readonly costUsd: number | null;
  /** The cost of the calls whose price is known: a lower bound of what the session cost when some are not. */
  readonly pricedCostUsd: number;
  /** Model calls with no known price. */
  readonly unpricedCalls: number;
  readonly toolCalls: number;
  readonly toolFailures: number;
  readonly toolMs: number;
}

/** Which calls totals add up: see `AccountingStore.totals`. */
export type TotalsScope = 'session' | 'with_sub_agents' | 'tree';

/** Every model call and tool call, for totals and for the full output of a tool. */
export interface AccountingStore {
  recordModelCall(record: ModelCallRecord): void;
  recordToolCall(record: ToolCallRecord): void;
  /**
   * A session's totals: its own calls (`session`, the default), with those of its sub-agents and theirs (`with_sub_agents`),
   * or of the whole tree it belongs to, from the session the person started down (`tree`: what session budgets count).
   */
  totals(sessionId: string, scope?: TotalsScope): SessionTotals;
  toolOutput(toolCallId: string): { output: string; outputBytes: number; truncated: boolean } | null;
}

/** US dollars per million tokens, input and output, for the Anthropic model families. */
const anthropicPrices: ReadonlyArray<{ readonly match: RegExp; readonly input: number; readonly output: number }> = [
  { match: /opus-4-[5-9]|opus-[5-9]/, input: 5, output: 25 },
  { match: /opus/, input: 15, output: 75 },
  { match: /sonnet/, input: 3, output: 15 },
  { match: /haiku-4|haiku-[5-9]/, input: 1, output: 5 },
  { match: /3-5-haiku|haiku-3-5/, input: 0.8, output: 4 },
  { match: /haiku/, input: 0.25, output: 1.25 },
];

/** The answers for the last 100 addresses asked about. */
const loopback = new BoundedMap<string, boolean>({ max: 100 });

/** Whether an endpoint is on this machine; asked once per model call, so each answer is kept. */
function isLoopback(baseUrl: string): boolean {
  const known = loopback.get(baseUrl);
  if (known !== undefined) return known;
  let answer: boolean;
  try {
    const host = new URL(baseUrl).hostname;
    answer = host === 'localhost' || host === '::1' || host === '[::1]' || /^127\./.test(host);
  } catch {
    answer = false;
  }
  loopback.set(baseUrl, answer);
  return answer;
}

/**
 * What Anthropic bills prompt tokens the cache read, and tokens written to it for five minutes (the app's breakpoints
 * ask for no longer), as parts of the input price (https://platform.claude.com/docs/en/build-with-claude/prompt-caching#pricing).
 */
const cacheReadRate = 0.1;
const cacheWriteRate = 1.25;

/** The price the person set for a model, if any. */
export function priceFor(prices: readonly ModelPrice[] | undefined, choice: ModelChoice): ModelPrice | null {
  return prices?.find((price) => price.providerId === choice.providerId && price.model === choice.model) ?? null;
}

/**
 * What a call cost: at the person's price for the model when they set one (whatever its endpoint); else 0 for a model on
 * this machine, a price for known Anthropic models, null when unknown. At Anthropic's prices the prompt's uncached tokens
 * are billed at the input price, the ones written to the cache at 1.25 times it, the ones read at 0.1.
 */
export function costOf(
  kind: ProviderKind,
  baseUrl: string,
  model: string,
  tokens: CallTokens,
  price: PriceFigures | null = null,
): number | null {
  if (price) return costAtPrice(price, tokens);
  if (isLoopback(baseUrl)) return 0;
  if (kind !== 'anthropic') return null;
  const known = anthropicPrices.find((candidate) => candidate.match.test(model));
  if (!known) return null;
  const read = tokens.cacheReadTokens ?? 0;
  const written = tokens.cacheWriteTokens ?? 0;
  const uncached = Math.max(0, tokens.inputTokens - read - written);
  const input = (uncached + written * cacheWriteRate + read * cacheReadRate) * known.input;
  return (input + tokens.outputTokens * known.output) / 1_000_000;
}
