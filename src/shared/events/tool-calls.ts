/*
 * The events of tool calls: asked for, started, their output and end, the problems and checks that follow a change,
 * results held for review, and retries.
 */

import { z } from 'zod';
import { checkResultSchema, problemReportSchema } from '../diagnostics';
import { injectionFindingSchema, resultReviewDecisionSchema } from '../guardrails';
import { idSchema } from '../input-limits';
import { riskLevelSchema } from '../risk';
import { toolCallRef, turnRef } from './refs';

/** How a tool call ended. `denied` is the person's or a rule's no; `failed` is an error or invalid input. */
export const toolCallStatusSchema = z.enum(['succeeded', 'failed', 'denied', 'cancelled']);
export type ToolCallStatus = z.infer<typeof toolCallStatusSchema>;

/** The events of tool calls, as members of the event union. */
export const toolCallEvents = [
  z.object({
    type: z.literal('tool_call_requested'),
    ...toolCallRef,
    messageId: idSchema,
    tool: z.string(),
    /** The arguments as the model sent them: parsed JSON, or the raw text when it was not JSON. */
    input: z.unknown(),
    summary: z.string(),
    risk: riskLevelSchema,
    riskReason: z.string(),
    /** What the call would change (a unified diff for file writes). */
    preview: z.string().optional(),
  }),
  z.object({
    type: z.literal('tool_call_started'),
    ...toolCallRef,
    rule: z.enum(['matrix', 'grant', 'plan', 'approval']),
    /** The grant it runs on, when `rule` is `grant`. */
    grantId: idSchema.optional(),
  }),
  z.object({ type: z.literal('tool_output'), ...toolCallRef, text: z.string() }),
  /** The workspace's check command ran after a turn that changed files: its result, shown with the turn. */
  z.object({ type: z.literal('check_ran'), ...turnRef, result: checkResultSchema }),
  /** The problems language servers report in the files a call changed, given to the model with its result. */
  z.object({ type: z.literal('problems_reported'), ...toolCallRef, report: problemReportSchema }),
  z.object({
    type: z.literal('tool_call_finished'),
    ...toolCallRef,
    status: toolCallStatusSchema,
    /** What the model was given: the output, cut with a marker when long. */
    output: z.string(),
    outputBytes: z.number().int().nonnegative(),
    truncated: z.boolean(),
    latencyMs: z.number().nonnegative(),
    /**
     * Signs of a prompt injection found in the output; with `held`, the model has not been given it yet: a
     * `tool_result_held` follows, and the person's `tool_result_reviewed` says what the model gets. Absent in journals
     * from before the check, and when nothing was found.
     */
    injection: injectionFindingSchema.optional(),
  }),
  /** A flagged result waits for the person before the model sees it (see `tool_call_finished`). */
  z.object({ type: z.literal('tool_result_held'), ...toolCallRef, reviewId: idSchema, tool: z.string() }),
  /**
   * The person's answer to a held result: `release` gives the model the output, `withhold` a note in its place.
   * `stopped`: nobody answered; the turn was stopped while it was held, so it was withheld.
   */
  z.object({
    type: z.literal('tool_result_reviewed'),
    ...toolCallRef,
    reviewId: idSchema,
    decision: resultReviewDecisionSchema,
    stopped: z.literal(true).optional(),
  }),
  /** A read-only call failed for a reason that may pass (a busy file, a dropped connection) and runs again after a wait. */
  z.object({
    type: z.literal('tool_retry_scheduled'),
    ...toolCallRef,
    /** The attempt that failed, from 1; `of`: attempts in all. */
    attempt: z.number().int().positive(),
    of: z.number().int().positive(),
    delayMs: z.number().nonnegative(),
    /** Why it failed, in words. */
    reason: z.string().max(2_000),
    /** What the system said of it (an error code and its message), shown apart from the reason. */
    detail: z.string().max(2_000).optional(),
  }),
] as const;
