/*
 * Journal rows as SQLite returns them, read back into events; a row from a newer app or a damaged one is refused.
 */

import { BugError, StoreError } from '../../shared/errors';
import { eventFormatVersion, runtimeEventSchema, type JournalEntry, type RuntimeEvent } from '../../shared/events';

/** A journal row as SQLite returns it. */
export interface JournalRow {
  session_id: string;
  seq: number;
  at: number;
  format: number;
  payload: string;
}

/** The id an event introduces, stored beside it so its row is found by an index. */
export function refOf(event: RuntimeEvent): string | null {
  switch (event.type) {
    case 'user_message':
      return event.messageId;
    case 'run_started':
      return event.turnId;
    case 'checkpoint_saved':
      return event.checkpointId;
    case 'files_restored':
      return event.restoreId;
    // Events found by their session and place alone.
    case 'git_committed':
    case 'worktree_created':
    case 'worktree_brought_back':
    case 'worktree_removed':
    case 'autonomy_changed':
    case 'branch_started':
    case 'checkpoint_recovered':
    case 'status_changed':
    case 'assistant_message_started':
    case 'text_delta':
    case 'reasoning_delta':
    case 'model_call_finished':
    case 'tool_call_requested':
    case 'plan_proposed':
    case 'plan_answered':
    case 'budget_reached':
    case 'budget_answered':
    case 'approval_requested':
    case 'approval_answered':
    case 'trust_grant_created':
    case 'tool_call_started':
    case 'tool_output':
    case 'problems_reported':
    case 'check_ran':
    case 'tool_call_finished':
    case 'tool_result_held':
    case 'tool_result_reviewed':
    case 'tool_retry_scheduled':
    case 'context_measured':
    case 'context_compacted':
    case 'context_truncated':
    case 'files_snapshotted':
    case 'session_imported':
    case 'message_queued':
    case 'queue_cleared':
    case 'memories_recalled':
    case 'model_fallback_used':
    case 'model_retry_scheduled':
    case 'run_finished':
      return null;
    default: {
      // Events are typed when they are appended, so only a type left out above lands here.
      const unhandled: never = event;
      throw new BugError(`No reference for ${JSON.stringify(unhandled)}.`);
    }
  }
}

/** Reads a row's event; a row from a newer app or a damaged one is refused with a typed error. */
export function parseJournalRow(sessionId: string, row: JournalRow): RuntimeEvent {
  if (row.format > eventFormatVersion) {
    throw new StoreError('store_newer_version', `Event ${row.seq} of session ${sessionId} was written by a newer version of the app.`);
  }
  let raw: unknown;
  try {
    raw = JSON.parse(row.payload);
  } catch (error) {
    throw new StoreError('store_corrupt', `Event ${row.seq} of session ${sessionId} is damaged: ${(error as Error).message}.`);
  }
  const parsed = runtimeEventSchema.safeParse(raw);
  if (!parsed.success) {
    throw new StoreError(
      'store_corrupt',
      `Event ${row.seq} of session ${sessionId} is damaged: ${parsed.error.issues[0]?.message ?? 'invalid'}.`,
    );
  }
  return parsed.data;
}

export function toEntry(sessionId: string, row: JournalRow): JournalEntry {
  return { sessionId: row.session_id, seq: row.seq, at: row.at, event: parseJournalRow(sessionId, row) };
}
