/*
 * The IPC channels of git: a session's repository at a glance, and commits of the agent's changes from Changes.
 */

import { z } from 'zod';
import { idSchema, limits, sessionSchema } from '../domain';
import { bringBackPlanSchema, bringBackResultSchema, commitMessageSchema, gitCommitSchema, gitViewSchema, worktreeSchema } from '../git';

const scope = { sessionId: idSchema, turnId: idSchema.optional() };

/** The channels of git, spread into the contract (`channels`). */
export const gitChannels = {
  /** The branch, upstream and changed files of the session's workspace repository, read now. */
  'git:view': { input: z.object({ sessionId: idSchema }).strict(), output: gitViewSchema },
  /** A commit message for the agent's changes (the session's, or a turn's), drafted by the session's model. */
  'git:draft': {
    input: z.object(scope).strict(),
    output: z.object({ message: z.string(), paths: z.array(z.string()), changedSince: z.array(z.string()) }),
  },
  /** Commits the agent's files of the session (or a turn) with this message, and nothing else. */
  'git:commit': { input: z.object({ ...scope, message: commitMessageSchema }).strict(), output: gitCommitSchema },
  /** A new session in a worktree of its own (a new branch, in a folder of the app's) of the repository the folder is in. */
  'git:worktreeSession': {
    input: z
      .object({
        title: z.string().trim().min(1).max(limits.titleLength).optional(),
        workspacePath: z
          .string()
          .min(1)
          .max(limits.pathLength)
          .refine((value) => !value.includes('\0'), 'must not contain NUL bytes'),
      })
      .strict(),
    output: sessionSchema,
  },
  /** The session's worktree, whether it was removed, and whether it holds work not brought back. */
  'git:worktree': {
    input: z.object({ sessionId: idSchema }).strict(),
    output: z.object({ worktree: worktreeSchema.nullable(), removed: z.boolean(), unmerged: z.boolean() }),
  },
  /** What bringing the session's work back to the person's folder would do, file by file. */
  'git:bringBackPlan': { input: z.object({ sessionId: idSchema }).strict(), output: bringBackPlanSchema },
  /** Brings the session's work back; conflicts are written with markers only when `withMarkers`. */
  'git:bringBack': { input: z.object({ sessionId: idSchema, withMarkers: z.boolean() }).strict(), output: bringBackResultSchema },
  /** Removes the session's worktree (its branch too, when asked). */
  'git:removeWorktree': { input: z.object({ sessionId: idSchema, deleteBranch: z.boolean() }).strict(), output: z.object({}) },
} as const satisfies Record<string, { input: z.ZodType; output: z.ZodType }>;
