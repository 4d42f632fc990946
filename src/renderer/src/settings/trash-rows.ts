/*
 * The rows of Settings → Trash: the entries as listed, each with what its last restore came to when that failed, then
 * the entries that do not open, with why.
 */

import type { ChannelOutput } from '../../../shared/ipc/contract';

type Listed = ChannelOutput<'trash:list'>[number];
/** An entry that opens: where it was and when it was deleted. */
export type TrashListEntry = Exclude<Listed, { error: unknown }>;

/** One row: an entry with the message of its failed restore (null when none failed), or an entry that does not open. */
export type TrashRow =
  | { readonly kind: 'entry'; readonly entry: TrashListEntry; readonly failure: string | null }
  | { readonly kind: 'unreadable'; readonly id: string; readonly message: string };

/**
 * The rows for the entries as listed (newest first, then those that do not open, as the trash lists them), each entry
 * with the failure of its last restore; a failure whose entry is no longer listed is not shown.
 */
export function trashRows(listed: readonly Listed[], failures: ReadonlyMap<string, string>): TrashRow[] {
  return listed.map((entry): TrashRow =>
    'error' in entry
      ? { kind: 'unreadable', id: entry.id, message: entry.error.message }
      : { kind: 'entry', entry, failure: failures.get(entry.id) ?? null },
  );
}
