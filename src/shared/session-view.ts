/*
 * The session view: the one reducer that folds a session's journal into what the window shows, live as events arrive
 * and again from the journal after a restart. Each family of events has its fold in `session-view/`; the switch here
 * hands each event to its family's and lists every event type, so a new one fails to compile until it is placed.
 */

import { BugError } from './errors';
import type { JournalEntry, RuntimeEvent } from './events';
import { settleToolCallDrafts } from './tool-call-drafts';
import { applyBudgetEvent } from './session-view/budget-gates';
import { applyCheckpointEvent } from './session-view/checkpoints';
import type { EntryPlace } from './session-view/entry-place';
import { applyGateEvent } from './session-view/gates';
import { applyGuardEvent } from './session-view/guards';
import { applyMessageEvent } from './session-view/messages';
import { applyModelContextEvent } from './session-view/model-context';
import { applyToolCallEvent } from './session-view/tool-calls';
import { applyTurnEvent } from './session-view/turns';
import type { SessionView } from './session-view/types';

export * from './session-view/types';

export const emptySessionView: SessionView = {
  status: 'idle',
  messages: [],
  lastSeq: -1,
  activeTurnId: null,
  retry: null,
  pendingApproval: null,
  pendingReviews: [],
  pendingBudget: null,
  plan: null,
  queued: null,
  commits: [],
  worktree: null,
  checkpoints: [],
  lastAnswer: null,
  lastRestore: null,
  usage: {
    inputTokens: 0,
    outputTokens: 0,
    modelMs: 0,
    costUsd: 0,
    toolCalls: 0,
    promptTokens: 0,
    rereadTokens: 0,
    cacheReadTokens: 0,
    cacheWriteTokens: 0,
    unpricedCalls: 0,
  },
  turns: {},
  context: null,
  interrupted: null,
  warnings: [],
  problems: {},
  drafting: null,
};

/** The view after one event, by its family's fold. */
function applyEvent(view: SessionView, event: RuntimeEvent, place: EntryPlace): SessionView {
  switch (event.type) {
    case 'user_message':
    case 'assistant_message_started':
    case 'text_delta':
    case 'reasoning_delta':
      return applyMessageEvent(view, event, place);
    case 'tool_call_requested':
    case 'tool_call_started':
    case 'tool_output':
    case 'tool_call_finished':
    case 'problems_reported':
      return applyToolCallEvent(view, event, place);
    case 'tool_result_held':
    case 'tool_result_reviewed':
    case 'tool_retry_scheduled':
      return applyGuardEvent(view, event);
    case 'plan_proposed':
    case 'plan_answered':
    case 'approval_requested':
    case 'approval_answered':
    case 'trust_grant_created':
      return applyGateEvent(view, event);
    case 'budget_reached':
    case 'budget_answered':
      return applyBudgetEvent(view, event);
    case 'checkpoint_saved':
    case 'checkpoint_recovered':
    case 'files_snapshotted':
    case 'files_restored':
    case 'git_committed':
    case 'worktree_created':
    case 'worktree_brought_back':
    case 'worktree_removed':
      return applyCheckpointEvent(view, event, place);
    case 'context_measured':
    case 'context_compacted':
    case 'context_truncated':
    case 'model_call_finished':
    case 'model_retry_scheduled':
    case 'model_fallback_used':
      return applyModelContextEvent(view, event, place);
    case 'run_started':
    case 'run_finished':
    case 'status_changed':
    case 'branch_started':
    case 'message_queued':
    case 'queue_cleared':
    case 'memories_recalled':
    case 'check_ran':
    case 'session_imported':
    case 'autonomy_changed':
      return applyTurnEvent(view, event, place);
    default: {
      // Entries are parsed by the journal's schema before they reach a view, so only a type left out above lands here.
      const unhandled: never = event;
      throw new BugError(`The session view has no fold for ${JSON.stringify(unhandled)}.`);
    }
  }
}

/** Folds journal entries into the view. Entries at or below `lastSeq` are ignored, so replays are idempotent. */
export function reduceSessionView(view: SessionView, entries: readonly JournalEntry[]): SessionView {
  let next = view;
  for (const entry of entries) {
    if (entry.seq <= next.lastSeq) continue;
    next = { ...applyEvent(next, entry.event, { seq: entry.seq, at: entry.at }), lastSeq: entry.seq };
  }
  return settleToolCallDrafts(next);
}
