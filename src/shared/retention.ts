/*
 * How long an archived session is kept before it is purged.
 */

import { z } from 'zod';

/**
 * How many days an archived session is kept before it is purged; null keeps archived sessions until the
 * person deletes them. The choices are few on purpose: a week, a month, a quarter, a year, or never.
 */
export const archiveRetentionSchema = z.union([z.literal(7), z.literal(30), z.literal(90), z.literal(365)]).nullable();
export type ArchiveRetention = z.infer<typeof archiveRetentionSchema>;

/**
 * Thirty days, as the trash of most mail and photo apps keeps what was deleted: long enough to notice a
 * session deleted by mistake after a holiday, short enough that conversations the person meant to be rid of
 * (with whatever was pasted into them, and the file contents saved for them) do not linger for good.
 */
export const defaultArchiveRetention: ArchiveRetention = 30;

export const dayMs = 24 * 60 * 60_000;

/** When a session archived at `archivedAt` is purged under `retention`; null when it never is. */
export function purgeTime(archivedAt: number, retention: ArchiveRetention): number | null {
  return retention === null ? null : archivedAt + retention * dayMs;
}
