/*
 * The events a turn emits and the journal records, as one closed union, and the tool-call drafts streamed to the UI but
 * never journalled.
 */

import { bringBackResultSchema, gitCommitSchema, worktreeSchema } from './git';
import { z } from 'zod';
import { attachmentSchema } from './attachments';
import { budgetAnswerSchema, budgetFigureSchema, budgetKindSchema, sessionAllowanceSchema } from './budgets';
import { errorInfoSchema } from './errors';
import { checkResultSchema, problemReportSchema } from './diagnostics';
import { filesRestoredSchema } from './file-history';
import { injectionFindingSchema, resultReviewDecisionSchema } from './guardrails';
import {
  approvalDecisionSchema,
  gateDeadlineSchema,
  autonomySchema,
  branchReasonSchema,
  escalationSchema,
  idSchema,
  limits,
  modelChoiceSchema,
  riskLevelSchema,
  sessionStatusSchema,
  trustGrantSchema,
  windowSourceSchema,
} from './domain';

/**
 * Version of the event format written to the journal. Bump it when an event changes shape and keep
 * a sample of the old format as a test fixture.
 */
export const eventFormatVersion = 1;

const turnRef = { turnId: idSchema };
const toolCallRef = { turnId: idSchema, toolCallId: z.string().min(1).max(200) };

/** How a tool call ended. `denied` is the person's or a rule's no; `failed` is an error or invalid input. */
export const toolCallStatusSchema = z.enum(['succeeded', 'failed', 'denied', 'cancelled']);
export type ToolCallStatus = z.infer<typeof toolCallStatusSchema>;

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

/** Every event the runtime emits and journals: one closed union, snake_case, past tense or noun. */
/** A repository map given to the model with the person's message: the map, and how much of the workspace it shows. */
export const givenCodeMapSchema = z.object({
  text: z.string().max(100_000),
  files: z.number().int().nonnegative(),
  definitions: z.number().int().nonnegative(),
  /** Source files the index holds. */
  indexed: z.number().int().nonnegative(),
  /** Its tokens, by the model's ratio. */
  tokens: z.number().int().nonnegative(),
});
export type GivenCodeMap = z.infer<typeof givenCodeMapSchema>;

export const runtimeEventSchema = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('user_message'),
    ...turnRef,
    messageId: idSchema,
    text: z.string(),
    /** Files attached to the message, as read when it was sent (absent in journals from before attachments). */
    attachments: z.array(attachmentSchema).optional(),
  }),
  /** Memories relevant to the person's message, given to the model after it (not in the system prompt, which stays the same). */
  z.object({
    type: z.literal('memories_recalled'),
    ...turnRef,
    /** The block the model reads after the person's message. */
    text: z.string().max(100_000),
    memories: z.array(z.object({ id: z.string().max(100), text: z.string().max(20_000) })).max(100),
    /** The repository map given with it (absent when none was: off, unchanged, or not ready). */
    codeMap: givenCodeMapSchema.optional(),
  }),
  z.object({
    type: z.literal('run_started'),
    ...turnRef,
    model: modelChoiceSchema,
    providerKind: z.string(),
    /** The turn goes on after the app stopped in the middle of it. */
    resumed: z.boolean().optional(),
    /** The autonomy the turn decides its calls with (absent in journals from before it was recorded). */
    autonomy: autonomySchema.optional(),
    /** The agent profile the turn runs with, at its version then (absent before profiles existed). */
    profile: z.object({ id: z.string().max(100), version: z.number().int().positive(), name: z.string().max(80) }).optional(),
  }),
  /** The person changed the session's autonomy; a running turn keeps the one it started with. */
  z.object({ type: z.literal('autonomy_changed'), from: autonomySchema, to: autonomySchema }),
  /** The first event of a branch: it continues its parent's line after `forkSeq`, from `checkpointId`. */
  z.object({
    type: z.literal('branch_started'),
    branchId: idSchema,
    parentId: idSchema,
    forkSeq: z.number().int().min(-1),
    checkpointId: idSchema.nullable(),
    reason: branchReasonSchema,
  }),
  /** A checkpoint failed its integrity check; the state was taken from an earlier, intact one. */
  z.object({
    type: z.literal('checkpoint_recovered'),
    requestedId: idSchema,
    usedId: idSchema.nullable(),
    message: z.string(),
  }),
  z.object({ type: z.literal('status_changed'), status: sessionStatusSchema }),
  z.object({ type: z.literal('assistant_message_started'), ...turnRef, messageId: idSchema }),
  z.object({ type: z.literal('text_delta'), ...turnRef, messageId: idSchema, text: z.string() }),
  z.object({ type: z.literal('reasoning_delta'), ...turnRef, messageId: idSchema, text: z.string() }),
  z.object({
    type: z.literal('model_call_finished'),
    ...turnRef,
    messageId: idSchema,
    inputTokens: z.number().int().nonnegative(),
    outputTokens: z.number().int().nonnegative(),
    latencyMs: z.number().nonnegative(),
    attempts: z.number().int().positive(),
    /** Null where the price is not known; 0 for local models. */
    costUsd: z.number().nonnegative().nullable().optional(),
    /** Of the input tokens, those the server said it took from its prompt cache, and those it wrote to a billed cache. */
    cacheReadTokens: z.number().int().nonnegative().optional(),
    cacheWriteTokens: z.number().int().nonnegative().optional(),
  }),
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
  /** What the next model request takes of the window, counted before it was sent. */
  z.object({
    type: z.literal('context_measured'),
    ...turnRef,
    /** The whole request: system prompt, tool definitions and messages. */
    tokens: z.number().int().nonnegative(),
    window: z.number().int().positive(),
    windowSource: windowSourceSchema,
    windowDetail: z.string(),
    /** Above this the request is made smaller first. */
    threshold: z.number().int().positive(),
    /** Room kept for the answer (the request's max_tokens). */
    reserve: z.number().int().nonnegative(),
    /** How the tokens were counted: the server's tokenizer, an estimate calibrated on the server's counts, or a plain estimate. */
    counting: z.enum(['tokenizer', 'usage', 'estimate']),
    /** Old tool results shortened in this request. */
    shortened: z.number().int().nonnegative(),
    /** Tokens at its beginning unchanged from the last request on this line to this model (a server's cache need not read them again); absent for the first. */
    shared: z.number().int().nonnegative().optional(),
    /** The system prompt sent with the request, as kept (`prompt:get`); absent in journals from before prompts were kept. */
    promptId: z.string().min(1).max(100).optional(),
  }),
  /**
   * Older messages were summarized so the conversation fits the window. The journal keeps them all:
   * only what the model sees changed, from this point of the line on.
   */
  z.object({
    type: z.literal('context_compacted'),
    ...turnRef,
    compactionId: idSchema,
    summary: z.string(),
    /** Index in the conversation of the first message seen verbatim after the summary. */
    upTo: z.number().int().nonnegative(),
    /** Messages the summary stands for, and the turns they belong to. */
    messages: z.number().int().nonnegative(),
    turns: z.number().int().nonnegative(),
    tokensBefore: z.number().int().nonnegative(),
    tokensAfter: z.number().int().nonnegative(),
    trigger: z.enum(['threshold', 'overflow', 'manual']),
    /**
     * Written by the model, or a list of the steps made by the app when the model could not summarize; `shortened`:
     * nothing was summarized (the summary is the one before), older results were only shortened.
     */
    method: z.enum(['model', 'digest', 'shortened']),
    note: z.string().optional(),
    /** Older messages seen shortened from here on (index in the conversation, characters kept or null for "read again later"). */
    cuts: z
      .array(z.object({ at: z.number().int().nonnegative(), keep: z.number().int().nonnegative().nullable() }))
      .max(100_000)
      .optional(),
    /** The summary was asked for as a continuation of the conversation the server had read already. */
    continued: z.boolean().optional(),
  }),
  /** The server counted far fewer prompt tokens than were sent: it cut the prompt without saying so. */
  z.object({
    type: z.literal('context_truncated'),
    ...turnRef,
    sentTokens: z.number().int().nonnegative(),
    reportedTokens: z.number().int().nonnegative(),
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
  /**
   * The session came from a file. Gates, answers and plan approvals the file records for a turn it left
   * unfinished are not taken: that turn's calls are decided again here, and ask at a fresh gate where the
   * rules ask. `message` says so, and what else the import changed (autonomy, workspace).
   */
  z.object({ type: z.literal('session_imported'), message: z.string() }),
  z.object({ type: z.literal('message_queued'), text: z.string(), replaced: z.boolean() }),
  z.object({ type: z.literal('queue_cleared'), reason: z.enum(['cleared', 'started']) }),
  /** The model could not be reached or was overloaded: the rest of the turn uses the profile's fallback model. */
  z.object({
    type: z.literal('model_fallback_used'),
    ...turnRef,
    from: modelChoiceSchema,
    to: modelChoiceSchema,
    error: errorInfoSchema,
    message: z.string(),
  }),
  z.object({
    type: z.literal('model_retry_scheduled'),
    ...turnRef,
    attempt: z.number().int().positive(),
    delayMs: z.number().nonnegative(),
    error: errorInfoSchema,
  }),
  z.object({
    type: z.literal('run_finished'),
    ...turnRef,
    status: z.enum(['completed', 'completed_with_errors', 'failed', 'cancelled']),
    error: errorInfoSchema.optional(),
  }),
]);
export type RuntimeEvent = z.infer<typeof runtimeEventSchema>;
export type RuntimeEventType = RuntimeEvent['type'];

const draftRef = {
  turnId: idSchema,
  messageId: idSchema,
  /** Which call of the response it is, with `callId`: servers reuse ids such as call_0 from one response to the next. */
  index: z.number().int().nonnegative(),
  callId: z.string().max(200),
};

/**
 * A tool call as the model writes it, before its response has finished: sent to the UI per frame and
 * never journalled. The `tool_call_requested` that follows the response holds the whole call (a long
 * file's content would otherwise be stored twice); a draft that never gets there was never sent.
 */
export const toolCallDraftEventSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('tool_call_draft_started'), ...draftRef, tool: z.string() }),
  z.object({ type: z.literal('tool_call_draft_delta'), ...draftRef, text: z.string() }),
]);
export type ToolCallDraftEvent = z.infer<typeof toolCallDraftEventSchema>;

/** A journalled event: its place in the session's order and when it happened. */
export const journalEntrySchema = z.object({
  sessionId: idSchema,
  seq: z.number().int().nonnegative(),
  at: z.number().int(),
  event: runtimeEventSchema,
});
export type JournalEntry = z.infer<typeof journalEntrySchema>;
