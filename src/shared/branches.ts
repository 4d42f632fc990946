/*
 * Where the shown conversation has other versions ("2 / 3"), and the tree of a session's branches, as the renderer
 * shows them.
 */

import { z } from 'zod';
import { branchReasonSchema, branchSchema, idSchema, type Branch } from './domain';

/** A place in the shown line where other versions exist ("2 / 3"), and how to show each. */
export const branchPointSchema = z.object({
  /** The versions differ from the first journal row after this one. */
  forkSeq: z.number().int().min(-1),
  versions: z.array(
    z.object({
      /** The branch to open to show this version as it was last seen. */
      branchId: idSchema,
      reason: z.union([branchReasonSchema, z.literal('original')]),
      createdAt: z.number().int(),
      shown: z.boolean(),
    }),
  ),
});
export type BranchPoint = z.infer<typeof branchPointSchema>;

export interface SessionTreeNode {
  readonly branch: Branch;
  readonly active: boolean;
  /** The first message of the branch's own part, shortened. */
  readonly title: string;
  readonly messages: number;
  readonly checkpoints: number;
  readonly children: readonly SessionTreeNode[];
}

export const sessionTreeNodeSchema: z.ZodType<SessionTreeNode> = z.lazy(() =>
  z.object({
    branch: branchSchema,
    active: z.boolean(),
    title: z.string(),
    messages: z.number().int(),
    checkpoints: z.number().int(),
    children: z.array(sessionTreeNodeSchema),
  }),
);
