/*
 * The token counts of one answer, from however many usage reports a server streams.
 */

import { z } from 'zod';
import type { ModelStreamEvent } from '../agent/ports/model-provider';

/** A token count if `value` is one (a finite number above zero), else null. */
function tokens(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? Math.floor(value) : null;
}

/** A count that may be zero (a prompt none of which was cached), else null. */
function count(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? Math.floor(value) : null;
}

/** A later figure replaces an earlier one, except that zero does not erase a figure already known. */
function later(known: number | null, value: number | null): number | null {
  if (value === null) return known;
  return value === 0 && known !== null ? known : value;
}

/** One usage report: OpenAI's `usage`, its `prompt_tokens_details.cached_tokens` included. */
export interface UsageReport {
  readonly promptTokens: unknown;
  readonly completionTokens: unknown;
  /** Of the prompt's tokens, those the server took from its prompt cache (OpenAI, vLLM, llama.cpp). */
  readonly cachedTokens?: unknown;
}

/** llama.cpp's `timings`: the prompt's tokens taken from the slot's cache, those read now, and the answer's. */
export interface TimingsReport {
  readonly cacheN?: number | undefined;
  readonly promptN?: number | undefined;
  readonly predictedN?: number | undefined;
}

const timingsCount = z.number().int().nonnegative().optional().catch(undefined);

/**
 * The `timings` llama-server adds to the last chunk of a stream, beside `usage` when it sends one
 * (tools/server/server-task.cpp, `to_json_oaicompat_chat_stream` and `result_timings::to_json`): `cache_n`, the prompt's
 * tokens taken from the slot's cache; `prompt_n`, those read now; `predicted_n`, the answer's. `cache_n + prompt_n` is
 * the whole prompt (server-context.cpp: `n_prompt_tokens_cache` and `n_prompt_tokens_processed`). A field that is
 * missing or not a count is left out.
 */
const timingsSchema = z.object({
  timings: z.object({ cache_n: timingsCount, prompt_n: timingsCount, predicted_n: timingsCount }),
});

/** The `timings` of a chunk, or null when it has none. */
export function timingsOf(chunk: unknown): TimingsReport | null {
  const parsed = timingsSchema.safeParse(chunk);
  if (!parsed.success) return null;
  const { cache_n: cacheN, prompt_n: promptN, predicted_n: predictedN } = parsed.data.timings;
  return { cacheN, promptN, predictedN };
}

/**
 * The token counts of one answer, from however many reports the stream carries.
 *
 * A server may report usage more than once: vLLM with `continuous_usage_stats` on every chunk, then once more in full
 * (vllm/entrypoints/openai/serving_chat.py); older llama-server builds on the finish chunk; proxies on a chunk of
 * their own after the server's. A later report replaces an earlier one, figure by figure, except that a figure it
 * leaves out or gives as zero does not erase one already known: a trailing report without the prompt's count is less
 * complete, not a prompt of no tokens. The provider says the result once, at the end.
 *
 * llama-server also sends `timings`; they say the same as `usage` in other words, so `usage` is taken where it speaks and
 * `timings` fill in what it leaves out: the whole prompt as `cache_n + prompt_n` and the answer as `predicted_n` for a
 * build that sends no usage, the cached part as `cache_n` for one whose usage has no `prompt_tokens_details`.
 */
export class UsageTally {
  private input = 0;
  private output = 0;
  private cached: number | null = null;
  private reported = false;
  private timingsInput: number | null = null;
  private timingsOutput: number | null = null;
  private timingsCached: number | null = null;

  report(usage: UsageReport): void {
    this.reported = true;
    this.input = tokens(usage.promptTokens) ?? this.input;
    this.output = tokens(usage.completionTokens) ?? this.output;
    this.cached = later(this.cached, count(usage.cachedTokens));
  }

  reportTimings(timings: TimingsReport): void {
    const cached = count(timings.cacheN);
    const read = count(timings.promptN);
    if (cached === null && read === null && count(timings.predictedN) === null) return;
    this.reported = true;
    this.timingsInput = later(this.timingsInput, tokens((cached ?? 0) + (read ?? 0)));
    this.timingsOutput = later(this.timingsOutput, tokens(timings.predictedN));
    this.timingsCached = later(this.timingsCached, cached);
  }

  /** The one `usage` event, or nothing when the server never said. */
  *event(): Iterable<ModelStreamEvent> {
    if (!this.reported) return;
    const inputTokens = this.input || (this.timingsInput ?? 0);
    const outputTokens = this.output || (this.timingsOutput ?? 0);
    const cached = this.cached ?? this.timingsCached;
    // A cached part larger than the whole is a server's slip; the whole bounds it, so `input - cached` is never negative.
    const cacheReadTokens = cached === null ? null : inputTokens > 0 ? Math.min(cached, inputTokens) : cached;
    yield { type: 'usage', inputTokens, outputTokens, ...(cacheReadTokens === null ? {} : { cacheReadTokens }) };
  }
}
