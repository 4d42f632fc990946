/* The guardrails' part of the session view's fold: flagged results, the reviews of held ones, and tool retries. */

import { BugError } from '../errors';
import type { RuntimeEvent } from '../events';
import type { SessionView, ViewInjection } from './types';
import { toolOf, updateToolCall } from './updates';

export type GuardEvent = Extract<RuntimeEvent, { type: 'tool_result_held' | 'tool_result_reviewed' | 'tool_retry_scheduled' }>;

/** What a finished call's event says of injection signs, for its card. */
export function injectionOnFinish(event: Extract<RuntimeEvent, { type: 'tool_call_finished' }>): { injection?: ViewInjection } {
  if (!event.injection || event.injection.signs.length === 0) return {};
  return { injection: { signs: event.injection.signs, review: event.injection.held ? 'waiting' : null, stopped: false } };
}

/** The view after one event of a flagged result, its review, or a tool's retry. */
export function applyGuardEvent(view: SessionView, event: GuardEvent): SessionView {
  switch (event.type) {
    case 'tool_result_held': {
      let review: SessionView['pendingReviews'][number] | null = null;
      const updated = updateToolCall(view, event.toolCallId, (call) => {
        review = {
          reviewId: event.reviewId,
          toolCallId: event.toolCallId,
          tool: call.tool,
          summary: call.summary,
          output: call.output,
          signs: call.injection?.signs ?? [],
        };
        return call;
      });
      const found = review ?? {
        reviewId: event.reviewId,
        toolCallId: event.toolCallId,
        tool: event.tool,
        summary: '',
        output: '',
        signs: [],
      };
      const others = view.pendingReviews.filter((pending) => pending.reviewId !== event.reviewId);
      return { ...updated, pendingReviews: [...others, found] };
    }
    case 'tool_result_reviewed': {
      const tool = view.pendingReviews.find((pending) => pending.reviewId === event.reviewId)?.tool ?? toolOf(view, event.toolCallId);
      const lastAnswer = { gate: 'result', tool, decision: event.decision } as const;
      const updated = updateToolCall(view, event.toolCallId, (call) => ({
        ...call,
        injection: {
          signs: call.injection?.signs ?? [],
          review: event.decision === 'release' ? 'released' : 'withheld',
          stopped: event.stopped === true,
        },
      }));
      return { ...updated, lastAnswer, pendingReviews: view.pendingReviews.filter((pending) => pending.reviewId !== event.reviewId) };
    }
    case 'tool_retry_scheduled':
      return updateToolCall(view, event.toolCallId, (call) => ({
        ...call,
        // The failed attempt's output is not the result; the next attempt's replaces it.
        output: '',
        outputTotal: 0,
        outputEpoch: call.outputEpoch + 1,
        retry: {
          attempt: event.attempt,
          of: event.of,
          delayMs: event.delayMs,
          reason: event.reason,
          ...(event.detail === undefined ? {} : { detail: event.detail }),
        },
      }));
    default: {
      const unhandled: never = event;
      throw new BugError(`The guardrails' fold has no case for ${JSON.stringify(unhandled)}.`);
    }
  }
}
