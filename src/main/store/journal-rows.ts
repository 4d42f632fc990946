/*
 * Journal rows as SQLite returns them, read back into events; a row from a newer app or a damaged one is refused.
 */

import { StoreError } from '../../shared/errors';
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
    default:
      return null;
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
