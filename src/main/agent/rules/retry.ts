/*
 * Model calls retried on transient failures, with exponential backoff and jitter.
 */
import type { ModelInfo } from '../../../shared/domain';
import type { Clock } from '../ports/clock';
import type { ModelProvider, ModelRequest, ModelStreamEvent, ModelWindow } from '../ports/model-provider';

export interface RetryPolicy {
  /** Total attempts including the first. */
  readonly maxAttempts: number;
  readonly baseDelayMs: number;
  readonly maxDelayMs: number;
}

export const defaultRetryPolicy: RetryPolicy = { maxAttempts: 4, baseDelayMs: 500, maxDelayMs: 8_000 };

/**
 * Exponential backoff with "equal jitter": half the step is fixed, half random, so retries spread
 * out without ever collapsing to zero. A server's Retry-After wins when it is within the cap.
 */
export function backoffDelay(policy: RetryPolicy, attempt: number, random: () => number, retryAfterMs?: number): number {
  if (retryAfterMs !== undefined && retryAfterMs >= 0 && retryAfterMs <= policy.maxDelayMs) return retryAfterMs;
  const step = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
  return Math.round(step / 2 + random() * (step / 2));
}

/** Events that show the person something; once one is out, a retry would repeat it, so none is made. */
function isContent(event: ModelStreamEvent): boolean {
  return (
    event.type === 'text_delta' ||
    event.type === 'reasoning_delta' ||
    event.type === 'reasoning_block' ||
    event.type === 'tool_call_started' ||
    event.type === 'tool_call_arguments_delta' ||
    event.type === 'tool_call_ready'
  );
}

/**
 * Wraps a provider so transient failures (connection refused or reset, 429, 5xx) that happen before
 * any content was streamed are retried with bounded backoff. Each wait is announced with a
 * `retry_scheduled` event so the person sees why nothing is happening.
 */
export class RetryingModelProvider implements ModelProvider {
  readonly kind: ModelProvider['kind'];

  constructor(
    private readonly inner: ModelProvider,
    private readonly clock: Clock,
    private readonly policy: RetryPolicy = defaultRetryPolicy,
    private readonly random: () => number = Math.random,
  ) {
    this.kind = inner.kind;
  }

  async *stream(request: ModelRequest, signal: AbortSignal): AsyncIterable<ModelStreamEvent> {
    for (let attempt = 1; ; attempt += 1) {
      let streamedContent = false;
      let failure: Extract<ModelStreamEvent, { type: 'error' }> | null = null;
      for await (const event of this.inner.stream(request, signal)) {
        if (
          event.type === 'error' &&
          !streamedContent &&
          event.error.retryable === true &&
          attempt < this.policy.maxAttempts &&
          !signal.aborted
        ) {
          failure = event;
          break;
        }
        if (isContent(event)) streamedContent = true;
        yield event;
      }
      if (failure === null) return;
      const delayMs = backoffDelay(this.policy, attempt, this.random, failure.retryAfterMs);
      yield { type: 'retry_scheduled', attempt, delayMs, error: failure.error };
      try {
        await this.clock.sleep(delayMs, signal);
      } catch {
        yield { type: 'error', error: { code: 'cancelled', message: 'Stopped by the user.' } };
        return;
      }
    }
  }

  listModels(signal: AbortSignal): Promise<ModelInfo[]> {
    return this.inner.listModels(signal);
  }

  window(model: string, signal: AbortSignal): Promise<ModelWindow | null> {
    return this.inner.window ? this.inner.window(model, signal) : Promise.resolve(null);
  }

  get countTokens(): ModelProvider['countTokens'] {
    return this.inner.countTokens?.bind(this.inner);
  }

  get concurrency(): ModelProvider['concurrency'] {
    return this.inner.concurrency?.bind(this.inner);
  }
}
