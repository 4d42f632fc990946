/*
 * Retries of read-only calls that failed for a reason that passes: a busy or locked file, too many open files, a
 * dropped connection. Three tries in all (seed 000), with exponential backoff and jitter through the turn's clock.
 * A call that may change something is never run twice by the app: its first failure may have changed half of it.
 */
import { CancelledError } from '../../../shared/errors';
import { backoffDelay, type RetryPolicy } from '../rules/retry';
import type { ToolOutcome } from '../ports/tools';
import type { PreparedCall } from './loop-state';
import type { StepContext } from './step-context';

export const toolRetryPolicy: RetryPolicy = { maxAttempts: 3, baseDelayMs: 250, maxDelayMs: 2_000 };

/** A tool's failure that may pass if the call is made again: what a tool throws to say so. */
export class TransientToolError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}

/**
 * System error codes of failures that pass (resources busy or exhausted for a moment, connections dropped or slow), each
 * with what it means in words.
 */
const transientCodes: ReadonlyMap<string, string> = new Map([
  ['EBUSY', 'the file was busy'],
  ['EAGAIN', 'the system was busy'],
  ['EWOULDBLOCK', 'the system was busy'],
  ['EMFILE', 'too many files were open'],
  ['ENFILE', 'too many files were open'],
  ['ETIMEDOUT', 'the connection timed out'],
  ['ECONNRESET', 'the connection was cut'],
  ['ECONNREFUSED', 'nothing answered the connection'],
  ['ECONNABORTED', 'the connection was cut'],
  ['EPIPE', 'the connection was cut'],
  ['ENOTCONN', 'the connection was cut'],
  ['EAI_AGAIN', 'the server’s name could not be looked up for a moment'],
  ['UND_ERR_SOCKET', 'the connection was cut'],
  ['UND_ERR_CONNECT_TIMEOUT', 'the connection timed out'],
]);

/** Why a call failed for a passing reason: in words, and what the system said (its code and message) apart. */
export interface TransientFailure {
  readonly reason: string;
  readonly detail?: string;
}

/**
 * Why an error may pass, or null when it will not: a `TransientToolError` (its message), or a transient system code on it
 * or its causes (the code in words, the code and its message as the detail).
 */
export function transientReason(error: unknown): TransientFailure | null {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current instanceof Error; depth += 1) {
    if (current instanceof TransientToolError) return { reason: current.message };
    const code = (current as Error & { code?: unknown }).code;
    const words = typeof code === 'string' ? transientCodes.get(code) : undefined;
    if (words !== undefined) return { reason: words, detail: `${String(code)}: ${current.message}` };
    current = current.cause;
  }
  return null;
}

/**
 * Runs a call's tool (`attempt`), again after a wait when a read-only call fails for a passing reason: a thrown
 * transient error, or an outcome the tool marked `transient`. Each wait is journalled (`tool_retry_scheduled`) so the
 * card shows it; Stop during a wait ends it at once. The last failure is returned or thrown as it was, saying how many
 * tries were made.
 */
export async function withRetries(
  { setup, services, writer }: StepContext,
  call: PreparedCall,
  attempt: () => Promise<ToolOutcome>,
  policy: RetryPolicy = toolRetryPolicy,
  random: () => number = Math.random,
): Promise<ToolOutcome> {
  const retries = call.assessment.level === 'read_only';
  for (let tries = 1; ; tries += 1) {
    const last = !retries || tries >= policy.maxAttempts;
    let reason: TransientFailure;
    try {
      const outcome = await attempt();
      if (!outcome.isError || outcome.transient !== true) return outcome;
      if (last) return tries > 1 ? { ...outcome, output: `${outcome.output}\n[failed ${tries} times; not tried again]` } : outcome;
      reason = { reason: outcome.output.split('\n')[0]?.slice(0, 500) ?? 'failed' };
    } catch (error) {
      const transient = writer.signal.aborted ? null : transientReason(error);
      if (transient === null || last) {
        if (transient !== null && tries > 1 && error instanceof Error)
          error.message = `${error.message} (failed ${tries} times; not tried again)`;
        throw error;
      }
      reason = transient;
    }
    const delayMs = backoffDelay(policy, tries, random);
    const { turnId } = setup;
    writer.journal([
      {
        type: 'tool_retry_scheduled',
        turnId,
        toolCallId: call.request.id,
        attempt: tries,
        of: policy.maxAttempts,
        delayMs,
        reason: reason.reason.slice(0, 2_000),
        ...(reason.detail === undefined ? {} : { detail: reason.detail.slice(0, 2_000) }),
      },
    ]);
    writer.flush();
    try {
      await services.clock.sleep(delayMs, writer.signal);
    } catch {
      throw new CancelledError();
    }
  }
}
