/*
 * What the agent changed in a session or a turn, path by path, and each file's diff, as the changes view shows them.
 */

import { z } from 'zod';

/**
 * One path the agent created, changed or deleted over a session or a turn: compared from the
 * files as they were at the start to the files as the agent left them.
 */
export const changedFileSchema = z.object({
  path: z.string(),
  kind: z.enum(['file', 'folder']),
  change: z.enum(['create', 'modify', 'delete']),
  /** Lines added and removed; null for folders, binary files and files too large to compare. */
  added: z.number().int().nonnegative().nullable(),
  removed: z.number().int().nonnegative().nullable(),
  binary: z.boolean(),
  /** The content at one end was too large to be saved, so it can be neither shown nor put back. */
  available: z.boolean(),
  /** The file on disk is no longer as the agent left it (the person or a later turn changed it), beyond parts taken back. */
  changedSince: z.boolean(),
  /**
   * How much of the change has been taken back on disk since (reverted here, restored, or undone by hand): none, some of
   * its parts (the file is otherwise as the agent left it), or all of it (the path is as it was before).
   */
  reverted: z.enum(['no', 'part', 'whole']),
  /** The sub-agents that changed it, when one did (the one that did the work, not those that handed it on). */
  by: z.array(z.object({ sessionId: z.string(), title: z.string() })).optional(),
});
export type ChangedFile = z.infer<typeof changedFileSchema>;

export const changeSetSchema = z.object({
  /** The turn compared, or null for the whole session. */
  turnId: z.string().nullable(),
  /** False when the agent has not changed a file yet (no files were saved). */
  saved: z.boolean(),
  files: z.array(changedFileSchema),
  /** The turns of the shown line that changed files, oldest first, to pick one from. */
  turns: z.array(z.object({ turnId: z.string(), files: z.number().int().nonnegative() })),
});
export type ChangeSet = z.infer<typeof changeSetSchema>;

/** One hunk of a file's diff: its `@@` header and its lines, each starting with ' ', '+' or '-'. */
export const diffHunkSchema = z.object({ header: z.string(), lines: z.array(z.string()) });
export type DiffHunk = z.infer<typeof diffHunkSchema>;

export const fileDiffSchema = z.object({
  file: changedFileSchema,
  /** Empty for folders, binary files and content too large to compare. */
  hunks: z.array(diffHunkSchema),
  /** Why there are no hunks to show, in words; null when there are. */
  note: z.string().nullable(),
  /** The hunks taken back on disk since (by index), which are no longer in the file. */
  reverted: z.array(z.number().int().nonnegative()),
});
export type FileDiff = z.infer<typeof fileDiffSchema>;

/** How many changed paths one `files_snapshotted` event lists at most; a longer list means the event tells only part. */
export const maxChangedListed = 500;
