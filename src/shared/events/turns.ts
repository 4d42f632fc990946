/*
 * The events of a turn and of the session's line: a turn started and finished, the session's status and autonomy
 * changed, a branch started, a session imported.
 */

import { z } from 'zod';
import { branchReasonSchema, sessionStatusSchema } from '../domain';
import { errorInfoSchema } from '../errors';
import { idSchema } from '../input-limits';
import { modelChoiceSchema } from '../model-endpoints';
import { autonomySchema } from '../risk';
import { turnRef } from './refs';

/** The events of turns and of the session's line, as members of the event union. */
export const turnEvents = [
  z.object({
    type: z.literal('run_started'),
    ...turnRef,
    model: modelChoiceSchema,
    providerKind: z.string(),
    /** The turn goes on after the app stopped in the middle of it. */
    resumed: z.boolean().optional(),
    /** The autonomy the turn decides its calls with (absent in journals from before it was recorded). */
    autonomy: autonomySchema.optional(),
    /** The agent profile the turn runs with, at its version then (absent before profiles existed). */
    profile: z.object({ id: z.string().max(100), version: z.number().int().positive(), name: z.string().max(80) }).optional(),
  }),
  /** The person changed the session's autonomy; a running turn keeps the one it started with. */
  z.object({ type: z.literal('autonomy_changed'), from: autonomySchema, to: autonomySchema }),
  /** The first event of a branch: it continues its parent's line after `forkSeq`, from `checkpointId`. */
  z.object({
    type: z.literal('branch_started'),
    branchId: idSchema,
    parentId: idSchema,
    forkSeq: z.number().int().min(-1),
    checkpointId: idSchema.nullable(),
    reason: branchReasonSchema,
  }),
  z.object({ type: z.literal('status_changed'), status: sessionStatusSchema }),
  /**
   * The session came from a file. Gates, answers and plan approvals the file records for a turn it left
   * unfinished are not taken: that turn's calls are decided again here, and ask at a fresh gate where the
   * rules ask. `message` says so, and what else the import changed (autonomy, workspace).
   */
  z.object({ type: z.literal('session_imported'), message: z.string() }),
  z.object({
    type: z.literal('run_finished'),
    ...turnRef,
    status: z.enum(['completed', 'completed_with_errors', 'failed', 'cancelled']),
    error: errorInfoSchema.optional(),
  }),
] as const;
