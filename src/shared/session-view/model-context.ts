/*
 * The model's part of the session view's fold: the context it is given (measured, compacted, truncated), what its calls
 * cost, and its retries and fallbacks.
 */

import { BugError } from '../errors';
import type { RuntimeEvent } from '../events';
import type { EntryPlace } from './entry-place';
import { turnCallAccounted } from './turn-figures';
import type { SessionView } from './types';

export type ModelContextEvent = Extract<
  RuntimeEvent,
  {
    type:
      | 'context_measured'
      | 'context_compacted'
      | 'context_truncated'
      | 'model_call_finished'
      | 'model_retry_scheduled'
      | 'model_fallback_used';
  }
>;

/** Warnings kept in the view: the newest ones. */
export const warningsKept = 20;

/** The view after one event of the model's context or calls. */
export function applyModelContextEvent(view: SessionView, event: ModelContextEvent, { seq, at }: EntryPlace): SessionView {
  switch (event.type) {
    case 'context_measured':
      return {
        ...view,
        usage: {
          ...view.usage,
          promptTokens: view.usage.promptTokens + event.tokens,
          rereadTokens: view.usage.rereadTokens + event.tokens - Math.min(event.tokens, event.shared ?? 0),
        },
        context: {
          tokens: event.tokens,
          window: event.window,
          threshold: event.threshold,
          reserve: event.reserve,
          source: event.windowSource,
          detail: event.windowDetail,
          counting: event.counting,
          shortened: event.shortened,
          shared: event.shared ?? null,
          peak: Math.max(view.context?.peak ?? 0, event.tokens),
          turnId: event.turnId,
          ...(event.promptId ? { promptId: event.promptId } : {}),
        },
      };
    case 'context_compacted':
      return {
        ...view,
        messages: [
          ...view.messages,
          {
            id: event.compactionId,
            seq,
            turnId: event.turnId,
            role: 'compaction',
            text: event.summary,
            reasoning: '',
            state: 'done',
            toolCalls: [],
            compaction: {
              messages: event.messages,
              turns: event.turns,
              tokensBefore: event.tokensBefore,
              tokensAfter: event.tokensAfter,
              trigger: event.trigger,
              method: event.method,
              note: event.note ?? null,
              shortened: event.cuts?.length ?? 0,
              continued: event.continued ?? false,
            },
          },
        ],
      };
    case 'context_truncated':
    case 'model_fallback_used':
      return { ...view, warnings: [...view.warnings, event.message].slice(-warningsKept) };
    case 'model_call_finished':
      return {
        ...turnCallAccounted(view, event, at),
        usage: {
          ...view.usage,
          inputTokens: view.usage.inputTokens + event.inputTokens,
          outputTokens: view.usage.outputTokens + event.outputTokens,
          modelMs: view.usage.modelMs + event.latencyMs,
          costUsd: view.usage.costUsd + (event.costUsd ?? 0),
          cacheReadTokens: view.usage.cacheReadTokens + (event.cacheReadTokens ?? 0),
          cacheWriteTokens: view.usage.cacheWriteTokens + (event.cacheWriteTokens ?? 0),
          unpricedCalls: view.usage.unpricedCalls + (event.costUsd === null ? 1 : 0),
        },
      };
    case 'model_retry_scheduled':
      return { ...view, retry: { attempt: event.attempt, delayMs: event.delayMs, error: event.error } };
    default: {
      const unhandled: never = event;
      throw new BugError(`The model context's fold has no case for ${JSON.stringify(unhandled)}.`);
    }
  }
}
