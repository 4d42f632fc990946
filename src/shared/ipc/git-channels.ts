/*
 * The IPC channels of git: a session's repository at a glance, and commits of the agent's changes from Changes.
 */

import { z } from 'zod';
import { idSchema } from '../domain';
import { commitMessageSchema, gitCommitSchema, gitViewSchema } from '../git';

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
} as const satisfies Record<string, { input: z.ZodType; output: z.ZodType }>;
