/*
 * The IPC channels of the app's trash (what the agent deleted, listed and put back), spread into the contract.
 */

import { z } from 'zod';
import { idSchema } from '../domain';
import { errorInfoSchema } from '../errors';

/** A deleted file or folder: where it was, and when. */
export const trashEntrySchema = z.object({
  id: z.string(),
  originalPath: z.string(),
  workspacePath: z.string(),
  relativePath: z.string(),
  deletedAt: z.number().int(),
  directory: z.boolean(),
});

/** An entry that does not open (sealed with another key, or changed since): listed with why, in place of its paths. */
export const unreadableTrashEntrySchema = z.object({ id: z.string(), error: errorInfoSchema });

/** The trash's channels, spread into the contract (`channels`). */
export const trashChannels = {
  'trash:list': { input: z.object({}).strict(), output: z.array(z.union([trashEntrySchema, unreadableTrashEntrySchema])) },
  'trash:restore': { input: z.object({ id: idSchema }).strict(), output: trashEntrySchema },
} as const satisfies Record<string, { input: z.ZodType; output: z.ZodType }>;
