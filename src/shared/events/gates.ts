/*
 * The events of the gates a turn waits at: plans proposed and answered, budgets reached and answered, approvals asked
 * and answered, and the trust grants the answers create.
 */

import { z } from 'zod';
import { budgetAnswerSchema, budgetFigureSchema, budgetKindSchema, sessionAllowanceSchema } from '../budgets';
import { gateDeadlineSchema } from '../domain';
import { idSchema, limits } from '../input-limits';
import { riskLevelSchema } from '../risk';
import { approvalDecisionSchema, escalationSchema, trustGrantSchema } from '../trust-grants';
import { toolCallRef, turnRef } from './refs';

export const planStepSchema = z.object({
  toolCallId: z.string(),
  tool: z.string(),
  summary: z.string(),
  risk: riskLevelSchema,
  decision: z.enum(['run', 'ask', 'deny']),
  /** What the step asks for beyond the sandbox: approving the plan approves it for this step only. */
  escalation: escalationSchema.optional(),
});
export type PlanStep = z.infer<typeof planStepSchema>;

/** The events of gates, as members of the event union. */
export const gateEvents = [
  z.object({
    type: z.literal('plan_proposed'),
    ...turnRef,
    planId: idSchema,
    purpose: z.string(),
    steps: z.array(planStepSchema),
    maxRisk: riskLevelSchema,
    needsApproval: z.boolean(),
    /** The plan's gate ends unanswered at this time (as a call's gate does); absent: it waits until answered. */
    deadline: gateDeadlineSchema.optional(),
  }),
  z.object({
    type: z.literal('plan_answered'),
    ...turnRef,
    planId: idSchema,
    answer: z.enum(['approve', 'reject', 'refine']),
    text: z.string().optional(),
    /** No answer came before the gate's deadline: the plan was rejected, as the setting said. */
    timedOut: z.literal(true).optional(),
  }),
  /**
   * A budget was reached: the turn waits at a gate until the person goes on with more (`step`) or stops. `figure` and
   * `limit` are counts, milliseconds of work (wall time), tokens, or US dollars, as the budget counts.
   */
  z.object({
    type: z.literal('budget_reached'),
    ...turnRef,
    gateId: idSchema,
    budget: budgetKindSchema,
    figure: budgetFigureSchema,
    limit: budgetFigureSchema,
    step: budgetFigureSchema,
    /** The cost budget's figure counts the session's calls with no price as nothing: how many there were (absent: none, or before this was said). */
    unpriced: z.number().int().positive().optional(),
  }),
  /**
   * The person's answer at a budget gate. `continue`: the budget's `limit` is now the figure reached plus the step;
   * `stopped`: nobody answered, the turn was stopped while it waited. `session`: the session's raised budgets as they
   * stand after this answer, carried by every answer so the newest one says them all.
   */
  z.object({
    type: z.literal('budget_answered'),
    ...turnRef,
    gateId: idSchema,
    budget: budgetKindSchema,
    answer: budgetAnswerSchema,
    limit: budgetFigureSchema.optional(),
    stopped: z.literal(true).optional(),
    session: sessionAllowanceSchema.optional(),
  }),
  z.object({
    type: z.literal('approval_requested'),
    ...toolCallRef,
    approvalId: idSchema,
    tool: z.string(),
    summary: z.string(),
    input: z.unknown(),
    risk: riskLevelSchema,
    reason: z.string(),
    preview: z.string().optional(),
    /** The call asks for more than the sandbox: the gate says so, and offers a grant for it only as a choice of its own. */
    escalation: escalationSchema.optional(),
    /** The folders a grant may cover instead of this call alone (innermost first, `` the whole workspace); absent when none. */
    folders: z.array(z.string()).optional(),
    /** The field of `input` the person may change before approving (a write's `content`, an edit's `newText`). */
    editableField: z.string().max(100).optional(),
    /** The gate ends unanswered at this time (Settings → Behaviour → gate time limit); absent: it waits until answered. */
    deadline: gateDeadlineSchema.optional(),
  }),
  z.object({
    type: z.literal('approval_answered'),
    ...toolCallRef,
    approvalId: idSchema,
    decision: approvalDecisionSchema,
    reason: z.string().optional(),
    grantId: idSchema.optional(),
    /** The person chose to trust the call's escalation too, for the answer's duration. */
    trustEscalation: z.literal(true).optional(),
    /** The person's own version of the call's content (a write's content, an edit's new text), which ran instead. */
    content: z.string().max(limits.editedContent).optional(),
    /** No answer came before the gate's deadline: the app answered, as the setting said. */
    timedOut: z.literal(true).optional(),
  }),
  z.object({ type: z.literal('trust_grant_created'), grant: trustGrantSchema }),
] as const;
