/*
 * What restoring a checkpoint's files would do to each path, and what a restore did.
 */

import { z } from 'zod';

/**
 * What restoring files would do to one path. `conflict`: the person changed the file since the
 * agent last saw it, so it is kept unless they say otherwise. `available: false`: the snapshot
 * could not hold it (too large), so it cannot be brought back.
 */
export const fileChangeSchema = z.object({
  path: z.string(),
  /** A folder is made or removed (only when empty) as a whole; absent in previews saved before folders were listed. */
  kind: z.enum(['file', 'folder']).default('file'),
  change: z.enum(['modify', 'create', 'delete']),
  conflict: z.boolean(),
  available: z.boolean(),
});
export type FileChange = z.infer<typeof fileChangeSchema>;

export const filePreviewSchema = z.object({
  /** The snapshot the files would come from; null when no snapshot of files exists at that point. */
  snapshotId: z.string().nullable(),
  changes: z.array(fileChangeSchema),
  /**
   * The commit the workspace had checked out at the checkpoint and the one it has now, when they differ: a restore
   * brings back files and never moves HEAD, so the files may then differ from the commit checked out. Absent when HEAD
   * has not moved, or outside a repository.
   */
  headMoved: z.object({ then: z.string(), now: z.string().nullable() }).optional(),
});
export type FilePreview = z.infer<typeof filePreviewSchema>;

export const filesRestoredSchema = z.object({
  restoreId: z.string(),
  snapshotId: z.string(),
  /** The state just before the restore: restoring it undoes the restore. */
  safetySnapshotId: z.string(),
  written: z.array(z.string()),
  deleted: z.array(z.string()),
  /** Kept as they were: changed by the person since, or not in the snapshot. */
  kept: z.array(z.string()),
  /**
   * Left alone because they could not be reached safely: a link on the way leads out of the
   * workspace, or into .git or the app's data. Absent from restores saved before it existed.
   */
  refused: z.array(z.string()).default([]),
});
export type FilesRestored = z.infer<typeof filesRestoredSchema>;

export const restoreModeSchema = z.enum(['conversation', 'files', 'both']);
export type RestoreMode = z.infer<typeof restoreModeSchema>;
