/*
 * The events of checkpoints and of the workspace's files: checkpoints saved or recovered, files snapshotted and restored,
 * commits of the agent's changes, and the session's worktree.
 */

import { z } from 'zod';
import { filesRestoredSchema } from '../file-history';
import { bringBackResultSchema, gitCommitSchema, worktreeSchema } from '../git';
import { idSchema } from '../input-limits';
import { turnRef } from './refs';

/** The events of checkpoints and files, as members of the event union. */
export const checkpointEvents = [
  z.object({
    type: z.literal('checkpoint_saved'),
    ...turnRef,
    checkpointId: idSchema,
    parentId: idSchema.nullable(),
    seq: z.number().int().nonnegative(),
    source: z.enum(['input', 'model', 'tool', 'approval', 'compaction']),
    /** The commit checked out in the workspace's repository when it was saved (absent outside a repository). */
    head: z.string().max(64).optional(),
  }),
  /** A checkpoint failed its integrity check; the state was taken from an earlier, intact one. */
  z.object({
    type: z.literal('checkpoint_recovered'),
    requestedId: idSchema,
    usedId: idSchema.nullable(),
    message: z.string(),
  }),
  /** The workspace's files were saved (only what changed is stored) at this point of the turn. */
  z.object({
    type: z.literal('files_snapshotted'),
    ...turnRef,
    snapshotId: idSchema,
    /** The checkpoint whose moment these files belong to. */
    checkpointId: idSchema.nullable(),
    files: z.number().int().nonnegative(),
    changed: z.array(z.string()),
    skipped: z.number().int().nonnegative(),
    /**
     * The turn's first snapshot (or the first after it resumed), taken before its first call: its
     * changes are compared from here, and what `changed` lists here was changed by someone else.
     * Absent in journals written before it existed.
     */
    turnStart: z.literal(true).optional(),
  }),
  /** The agent's changes were committed with git from Changes (the whole session's, or one turn's): shown in History. */
  z.object({ type: z.literal('git_committed'), turnId: idSchema.nullable(), commit: gitCommitSchema }),
  /** The session was given its own worktree when it was made: it works there, on its own branch. */
  z.object({ type: z.literal('worktree_created'), worktree: worktreeSchema }),
  /** The session's worktree changes were brought back to the person's folder. */
  z.object({ type: z.literal('worktree_brought_back'), result: bringBackResultSchema }),
  /** The session's worktree was removed (its branch too, when `branchDeleted`). */
  z.object({ type: z.literal('worktree_removed'), branchDeleted: z.boolean() }),
  /** Files were brought back to a checkpoint, a change was reverted from Changes, or either was undone. */
  z.object({
    type: z.literal('files_restored'),
    checkpointId: idSchema.nullable(),
    undoOf: idSchema.nullable(),
    ...filesRestoredSchema.shape,
    /**
     * What was made (or, for an undo, what it undid): a checkpoint's restore, a revert from Changes, or the files put back
     * with an edited message (the first row of its new version). Absent before it existed: a restore.
     */
    of: z.enum(['restore', 'revert', 'edit']).optional(),
    /** A restore of the conversation too: the version it opened, and the one shown before it, which its undo shows again. */
    branchId: idSchema.optional(),
    fromBranchId: idSchema.optional(),
  }),
] as const;
