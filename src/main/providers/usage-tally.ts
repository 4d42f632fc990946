/*
 * The token counts of one answer, from however many usage reports a server streams.
 */

import type { ModelStreamEvent } from '../agent/ports/model-provider';

/** A token count if `value` is one (a finite number above zero), else null. */
function tokens(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? Math.floor(value) : null;
}

/**
 * The token counts of one answer, from however many reports the stream carries.
 *
 * A server may report usage more than once: vLLM with `continuous_usage_stats` on every chunk, then once more in full
 * (vllm/entrypoints/openai/serving_chat.py); older llama-server builds on the finish chunk; proxies on a chunk of
 * their own after the server's. A later report replaces an earlier one, figure by figure, except that a figure it
 * leaves out or gives as zero does not erase one already known: a trailing report without the prompt's count is less
 * complete, not a prompt of no tokens. The provider says the result once, at the end.
 */
export class UsageTally {
  private input = 0;
  private output = 0;
  private reported = false;

  report(promptTokens: unknown, completionTokens: unknown): void {
    this.reported = true;
    this.input = tokens(promptTokens) ?? this.input;
    this.output = tokens(completionTokens) ?? this.output;
  }

  /** The one `usage` event, or nothing when the server never said. */
  *event(): Iterable<ModelStreamEvent> {
    if (this.reported) yield { type: 'usage', inputTokens: this.input, outputTokens: this.output };
  }
}
