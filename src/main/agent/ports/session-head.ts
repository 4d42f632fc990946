/*
 * Where a line of a session stands: its newest checkpoint, open turn, queued message and resume point. The journal
 * computes it with every append (`history/head-fold.ts`) and the store keeps it in the same transaction, so starting a turn, editing, retrying, resuming and recovering read one
 * row and the checkpoint chain instead of the whole journal. A replay of the journal must always give the stored
 * row (tests and the crash harness check it).
 */
import { z } from 'zod';
import { budgetFigureSchema, budgetKindSchema } from '../../../shared/budgets';
import { approvalDecisionSchema, gateDeadlineSchema } from '../../../shared/domain';
import { resultReviewDecisionSchema } from '../../../shared/guardrails';

/** How a call of the response being worked through stands. */
export const callStandingSchema = z.object({
  toolCallId: z.string(),
  /**
   * `gate`: waiting for an answer; `answered`: the answer is journalled, the call not started yet. `held`: it ran and
   * its flagged result waits for the person; `reviewed`: their answer is journalled.
   */
  state: z.enum(['requested', 'gate', 'answered', 'running', 'finished', 'held', 'reviewed']),
  approvalId: z.string().optional(),
  /** The answer as journalled: what a resumed turn takes at the gate, the person's own version of the content included. */
  answer: z
    .object({
      decision: approvalDecisionSchema,
      reason: z.string().optional(),
      content: z.string().optional(),
      timedOut: z.literal(true).optional(),
    })
    .optional(),
  /** The gate's time limit, as journalled with it. */
  deadline: gateDeadlineSchema.optional(),
  reviewId: z.string().optional(),
  review: resultReviewDecisionSchema.optional(),
});
export type CallStanding = z.infer<typeof callStandingSchema>;

export const planStandingSchema = z.object({
  planId: z.string(),
  /** `ran`: every step could run without asking. */
  state: z.enum(['waiting', 'approved', 'rejected', 'refined', 'ran']),
  text: z.string().optional(),
  /** The plan gate's time limit, as journalled with it. */
  deadline: gateDeadlineSchema.optional(),
  /** Rejected because no answer came before the deadline. */
  timedOut: z.literal(true).optional(),
});
export type PlanStanding = z.infer<typeof planStandingSchema>;

/** A budget gate the turn waits at: it opens again as it was after a restart. */
export const budgetStandingSchema = z.object({
  gateId: z.string(),
  budget: budgetKindSchema,
  figure: budgetFigureSchema,
  limit: budgetFigureSchema,
  step: budgetFigureSchema,
});
export type BudgetStanding = z.infer<typeof budgetStandingSchema>;

/** What an open turn was doing at its last journalled step: the state its loop resumes from. */
export const resumeStateSchema = z.discriminatedUnion('at', [
  /** The next step is a model call (the turn began, or a response was cut off). */
  z.object({ at: z.literal('model'), budget: budgetStandingSchema.optional() }),
  /** Working through the tool calls of one response. */
  z.object({
    at: z.literal('tools'),
    messageId: z.string(),
    /** The first journal row of this response's calls. */
    firstSeq: z.number().int(),
    plan: planStandingSchema.nullable(),
    calls: z.array(callStandingSchema),
    /** A budget reached before the next of these calls. */
    budget: budgetStandingSchema.optional(),
  }),
]);
export type ResumeState = z.infer<typeof resumeStateSchema>;

export interface SessionHead {
  /** The newest checkpoint on the line: the next turn continues its chain. */
  readonly checkpointId: string | null;
  /** The turn that started and has not finished. */
  readonly openTurn: string | null;
  /** A message queued while a turn ran, neither started nor cleared. */
  readonly queued: string | null;
  /** Set while a turn is open. */
  readonly resume: ResumeState | null;
  /** The line's last journal row. */
  readonly lastSeq: number;
}

/** Version of the fold (`history/head-fold.ts`): a stored head of another version is computed again from the journal. */
export const headFormatVersion = 1;

export const emptyHead: SessionHead = { checkpointId: null, openTurn: null, queued: null, resume: null, lastSeq: -1 };
