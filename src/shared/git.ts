/*
 * Git as the window sees it: a workspace's repository (branch, upstream, changed files), commits of the agent's
 * changes, and the inputs that ask for them.
 */

import { z } from 'zod';

const count = z.number().int().nonnegative();

/** A workspace's repository at a glance, as the session header shows it. */
export const gitViewSchema = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('repository'),
    /** The repository's top folder. */
    root: z.string(),
    /** The branch checked out, or null when HEAD is detached. */
    branch: z.string().nullable(),
    /** The commit checked out; null on a branch with no commit yet. */
    commit: z.string().nullable(),
    upstream: z.string().nullable(),
    ahead: count.nullable(),
    behind: count.nullable(),
    /** Paths that differ from HEAD or are new (untracked included), conflicted ones included. */
    changed: count,
    staged: count,
    untracked: count,
    conflicted: count,
  }),
  /** The workspace is not inside a git repository (or the session has no workspace). */
  z.object({ kind: z.literal('none') }),
  /** Git is missing or too old, or the repository cannot be read: the reason is said once. */
  z.object({ kind: z.literal('unavailable'), reason: z.string() }),
]);
export type GitView = z.infer<typeof gitViewSchema>;

/** A commit message: a subject line, then what the person or the model wrote. */
export const commitMessageSchema = z
  .string()
  .max(20_000)
  .refine((text) => text.trim() !== '', 'it is empty: write one')
  .refine((text) => !text.includes('\0'), 'it cannot hold NUL bytes');

/** A commit made by the app: which, on what branch, of which paths, with what the hooks said. */
export const gitCommitSchema = z.object({
  commit: z.string(),
  branch: z.string().nullable(),
  subject: z.string(),
  /** The paths committed, relative to the workspace. */
  paths: z.array(z.string()),
  /** What the repository's hooks printed (empty when none ran or they said nothing). */
  hookOutput: z.string(),
});
export type GitCommit = z.infer<typeof gitCommitSchema>;

/** A name git would take for an option, or cannot hold in a ref or a path list: refused before git sees it. */
export function unsafeGitName(name: string): string | null {
  if (name === '') return 'the name is empty';
  if (name.startsWith('-')) return `"${name}" starts with "-", which git would read as an option`;
  if (/[\0\n\r]/.test(name)) return 'the name holds a line break or a NUL byte';
  return null;
}

/** A session's own worktree: a branch checked out in a folder the app owns, made from the person's folder. */
export const worktreeSchema = z.object({
  /** The folder the session was made from (its work goes back there). */
  mainPath: z.string(),
  /** The top of that folder's repository. */
  mainRoot: z.string(),
  /** The top of the worktree. */
  root: z.string(),
  branch: z.string(),
  /** The commit the worktree was made at: changes are counted from it. */
  base: z.string(),
});
export type Worktree = z.infer<typeof worktreeSchema>;

/** What bringing one path back would do: apply the session's version, merge both, or stop at a conflict. */
export const bringBackFileSchema = z.object({
  /** Relative to the repository's top. */
  path: z.string(),
  change: z.enum(['create', 'modify', 'delete']),
  /**
   * `apply`: the main folder has it as the worktree started, so the session's version goes there. `merge`: both
   * changed it, in different places; merged cleanly. `conflict`: both changed the same lines, or one deleted what the
   * other changed, or it is binary. `same`: the main folder has it as the session left it already.
   */
  outcome: z.enum(['apply', 'merge', 'conflict', 'same']),
  reason: z.string().optional(),
});
export type BringBackFile = z.infer<typeof bringBackFileSchema>;

export const bringBackPlanSchema = z.object({
  files: z.array(bringBackFileSchema),
  /** The worktree's changes as they are now, to tell later whether work was added since it was brought back. */
  fingerprint: z.string(),
});
export type BringBackPlan = z.infer<typeof bringBackPlanSchema>;

export const bringBackResultSchema = z.object({
  written: z.array(z.string()),
  deleted: z.array(z.string()),
  merged: z.array(z.string()),
  /** Conflicts written with git's conflict markers (both versions inside), when the person asked for them. */
  withMarkers: z.array(z.string()),
  /** Conflicts left as the main folder has them. */
  skipped: z.array(z.string()),
  fingerprint: z.string(),
});
export type BringBackResult = z.infer<typeof bringBackResultSchema>;
