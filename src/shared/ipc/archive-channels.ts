/*
 * The IPC channels of archived sessions and of the audit view, spread into the contract.
 */

import { z } from 'zod';
import { sessionAuditSchema } from '../audit';
import { idSchema, sessionSchema } from '../domain';

/** A deleted session, kept until it is restored or purged; `purgeAt` null: kept until deleted by hand. */
export const archiveEntrySchema = z.object({
  session: sessionSchema,
  archivedAt: z.number().int(),
  purgeAt: z.number().int().nullable(),
});
export type ArchiveEntry = z.infer<typeof archiveEntrySchema>;

const sessionRef = z.object({ sessionId: idSchema }).strict();

/** The channels of the archive and of the audit view, spread into the contract (`channels`). */
export const archiveChannels = {
  /** Archived sessions, most recently archived first. */
  'archive:list': { input: z.object({}).strict(), output: z.array(archiveEntrySchema) },
  /** Brings an archived session back into the list with everything it had. */
  'archive:restore': { input: sessionRef, output: sessionSchema },
  /** Purges an archived session now: its conversation, checkpoints and the file contents only it referred to. */
  'archive:delete': { input: sessionRef, output: z.object({ deleted: z.literal(true) }) },
  /** Every decision of a session, in order: gates and their answers, calls decided without a gate, plans, grants, autonomy. */
  'audit:list': { input: sessionRef, output: sessionAuditSchema },
} as const satisfies Record<string, { input: z.ZodType; output: z.ZodType }>;
