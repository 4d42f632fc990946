/*
 * The token counts of one Anthropic answer, from the usage its stream reports at its start and at its end.
 */

import type { ModelStreamEvent } from '../agent/ports/model-provider';

/** The figures a `message_start` or `message_delta` usage may carry; servers leave some out, or give them as null. */
export interface ReportedUsage {
  readonly input_tokens?: number | null;
  readonly output_tokens?: number | null;
  readonly cache_read_input_tokens?: number | null;
  readonly cache_creation_input_tokens?: number | null;
}

/** A token count if `value` is one, else null: a figure that is not there says nothing. */
function count(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? Math.floor(value) : null;
}

/**
 * The usage of one answer, normalized. The API's `input_tokens` are only the prompt's tokens after its last cache
 * breakpoint; the prompt is those, the ones read from the cache and the ones written to it
 * (https://platform.claude.com/docs/en/build-with-claude/prompt-caching, "Tracking cache performance").
 *
 * `message_start` gives the figures first; `message_delta` may give them again (cumulative, so the same or more), and
 * Ollama's Anthropic-compatible API gives its final prompt count only there (412 where message_start said 398). So the
 * last figure given wins, figure by figure, and one a later event leaves out or gives as null keeps the one known.
 */
export class AnthropicUsage {
  private input: number | null = null;
  private output: number | null = null;
  private cacheRead: number | null = null;
  private cacheWrite: number | null = null;

  report(usage: ReportedUsage | null | undefined): void {
    if (!usage) return;
    this.input = count(usage.input_tokens) ?? this.input;
    this.output = count(usage.output_tokens) ?? this.output;
    this.cacheRead = count(usage.cache_read_input_tokens) ?? this.cacheRead;
    this.cacheWrite = count(usage.cache_creation_input_tokens) ?? this.cacheWrite;
  }

  /** Whether any token was counted: an answer cut short before anything was is not accounted. */
  get spent(): boolean {
    return (this.input ?? 0) + (this.output ?? 0) + (this.cacheRead ?? 0) + (this.cacheWrite ?? 0) > 0;
  }

  /** The `usage` event: the whole prompt as `inputTokens`, and the cache's part of it where the server said. */
  event(): Extract<ModelStreamEvent, { type: 'usage' }> {
    return {
      type: 'usage',
      inputTokens: (this.input ?? 0) + (this.cacheRead ?? 0) + (this.cacheWrite ?? 0),
      outputTokens: this.output ?? 0,
      ...(this.cacheRead === null ? {} : { cacheReadTokens: this.cacheRead }),
      ...(this.cacheWrite === null ? {} : { cacheWriteTokens: this.cacheWrite }),
    };
  }
}
