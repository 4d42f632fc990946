/* The session view's shapes: what the reducer in `session-view.ts` folds the journal into, and the renderer shows. */

import type { Attachment } from '../attachments';
import type { BudgetKind } from '../budgets';
import type { ErrorInfo } from '../errors';
import type { CheckResult, ProblemReport } from '../diagnostics';
import type { ApprovalDecision, Escalation, RiskLevel, SessionStatus, WindowSource } from '../domain';
import type { GivenCodeMap, PlanStep, ToolCallStatus } from '../events';
import type { InjectionSign, ResultReviewDecision } from '../guardrails';
import type { ViewDrafting } from '../tool-call-drafts';

export type MessageState = 'streaming' | 'done' | 'cancelled' | 'failed' | 'interrupted';
export type ViewToolCallState = 'requested' | 'waiting' | 'running' | 'interrupted' | ToolCallStatus;

export interface ViewToolCall {
  /** The problems found in the files the call changed, as the model was told. */
  readonly problems?: ProblemReport;
  /** The person's own version of the call's content, changed at its gate: what ran. */
  readonly changedByPerson?: string;
  readonly id: string;
  readonly tool: string;
  readonly summary: string;
  readonly input: unknown;
  readonly risk: RiskLevel;
  readonly riskReason: string;
  readonly preview: string | null;
  readonly state: ViewToolCallState;
  /** Live output while running (its last `liveOutputLimit` characters); what the model was given once finished. */
  readonly output: string;
  /** Characters of live output received in all, and which version of `output` this is (it is replaced when the call finishes). */
  readonly outputTotal: number;
  readonly outputEpoch: number;
  readonly outputBytes: number;
  readonly truncated: boolean;
  readonly latencyMs: number | null;
  /** Where in the journal its result was written (calls run side by side finish in any order). */
  readonly finishedSeq?: number;
  /** Signs of a prompt injection found in its result, and what became of a held one. */
  readonly injection?: ViewInjection;
  /** The newest retry of a read-only call that failed for a passing reason. */
  readonly retry?: {
    readonly attempt: number;
    readonly of: number;
    readonly delayMs: number;
    readonly reason: string;
    /** What the system said of the failure, apart from the reason in words. */
    readonly detail?: string;
  };
}

export interface ViewInjection {
  readonly signs: readonly InjectionSign[];
  /** `waiting`: held for the person; `released` or `withheld`: their answer; null: marked only, the model saw it. */
  readonly review: 'waiting' | 'released' | 'withheld' | null;
  /** Withheld because the turn was stopped while it was held. */
  readonly stopped: boolean;
}

/** A budget the turn reached: it waits for the person to go on with `step` more, or to stop. */
export interface ViewBudgetGate {
  readonly gateId: string;
  readonly turnId: string;
  readonly budget: BudgetKind;
  readonly figure: number;
  readonly limit: number;
  readonly step: number;
  /** For the cost: the session's calls with no price, which its figure counts as nothing. */
  readonly unpriced: number;
}

/** A flagged result held for the person before the model sees it. */
export interface ViewReview {
  readonly reviewId: string;
  readonly toolCallId: string;
  readonly tool: string;
  readonly summary: string;
  /** The result as the model would be given it. */
  readonly output: string;
  readonly signs: readonly InjectionSign[];
}

/** Live output kept per call in the view; the whole output is in the journal and the tool-calls table. */
export const liveOutputLimit = 1024 * 1024;

export interface ViewMessage {
  readonly id: string;
  /** The journal position of the event that began this message: where branches of it fork. */
  readonly seq: number;
  readonly turnId: string;
  /** A compaction is a divider in the conversation: earlier messages summarized for the model, its summary in `text`. */
  readonly role: 'user' | 'assistant' | 'compaction';
  readonly text: string;
  readonly reasoning: string;
  readonly state: MessageState;
  readonly toolCalls: readonly ViewToolCall[];
  readonly error?: ErrorInfo;
  readonly compaction?: ViewCompaction;
  /** Memories given to the model with a message of the person's. */
  readonly memories?: readonly string[];
  /** The repository map given to the model with a message of the person's. */
  readonly codeMap?: GivenCodeMap;
  /** Files attached to a message of the person's, as sent. */
  readonly attachments?: readonly Attachment[];
  /** The system prompt of the request this answer came from (`prompt:get`): what the model saw. */
  readonly promptId?: string;
}

export interface ViewCompaction {
  readonly messages: number;
  readonly turns: number;
  readonly tokensBefore: number;
  readonly tokensAfter: number;
  readonly trigger: 'threshold' | 'overflow' | 'manual';
  readonly method: 'model' | 'digest' | 'shortened';
  readonly note: string | null;
  /** Older messages seen shortened from here on. */
  readonly shortened: number;
  /** The summary was asked for as a continuation of the conversation the server had read already. */
  readonly continued: boolean;
}

/** What the newest model request took of the window. */
export interface ViewContext {
  readonly tokens: number;
  readonly window: number;
  readonly threshold: number;
  readonly reserve: number;
  readonly source: WindowSource;
  readonly detail: string;
  readonly counting: 'tokenizer' | 'usage' | 'estimate';
  readonly shortened: number;
  /** Tokens at the request's beginning unchanged from the one before it on the same line; null for the first. */
  readonly shared: number | null;
  /** The largest request of the session so far, in tokens. */
  readonly peak: number;
  /** The turn whose request this was (a later turn may have ended before measuring one). */
  readonly turnId?: string;
  /** The system prompt the request was sent with, when it was kept. */
  readonly promptId?: string;
}

export interface ViewApproval {
  readonly approvalId: string;
  readonly toolCallId: string;
  readonly tool: string;
  readonly summary: string;
  readonly input: unknown;
  readonly risk: RiskLevel;
  readonly reason: string;
  readonly preview: string | null;
  /** What the call asks for beyond the sandbox, when it does. */
  readonly escalation: Escalation | null;
  /** The folders a grant may cover instead of this call alone, innermost first; `` is the whole workspace. */
  readonly folders: readonly string[];
  /** The field of `input` the person may change before approving; null when the call's content cannot be changed. */
  readonly editableField: string | null;
  /** When the gate ends unanswered (wall clock, to count down to) and what then happens; null: it waits until answered. */
  readonly deadline: { readonly wallAt: number; readonly seconds: number; readonly action: 'deny' | 'stop' } | null;
}

export interface ViewPlan {
  readonly planId: string;
  readonly purpose: string;
  readonly steps: readonly PlanStep[];
  readonly maxRisk: RiskLevel;
  readonly state: 'waiting' | 'running' | 'rejected' | 'refining' | 'finished';
  /** When the plan's gate ends unanswered, as a call's gate does; null: it waits until answered. */
  readonly deadline: ViewApproval['deadline'];
}

/** What a session looks like to the person: the fold of its journal. */
export interface SessionView {
  readonly status: SessionStatus;
  readonly messages: readonly ViewMessage[];
  readonly lastSeq: number;
  readonly activeTurnId: string | null;
  readonly retry: { readonly attempt: number; readonly delayMs: number; readonly error: ErrorInfo } | null;
  readonly pendingApproval: ViewApproval | null;
  /** Flagged results held for the person, oldest first. */
  readonly pendingReviews: readonly ViewReview[];
  /** The budget gate the turn waits at. */
  readonly pendingBudget: ViewBudgetGate | null;
  readonly plan: ViewPlan | null;
  readonly queued: string | null;
  /** The session's own worktree, when it was given one. */
  readonly worktree: ViewWorktree | null;
  /** Commits of the agent's changes made from Changes, oldest first. */
  readonly commits: ReadonlyArray<ViewCommit>;
  /** Every saved checkpoint, oldest first: the timeline. */
  readonly checkpoints: ReadonlyArray<ViewCheckpoint>;
  /** The person's newest answer at a gate, until the checkpoint saved after it takes it. */
  readonly lastAnswer: ViewGateAnswer | null;
  /** The newest restore of files, which can be undone. */
  readonly lastRestore: {
    readonly restoreId: string;
    readonly safetySnapshotId: string;
    readonly written: readonly string[];
    readonly deleted: readonly string[];
    readonly kept: readonly string[];
    /** Left alone: a link was in the way, or the place is protected (.git, the app's data). */
    readonly refused: readonly string[];
    readonly undoOf: string | null;
    /** What it made, or undid: a checkpoint's restore, or a revert from Changes (which says so there). */
    readonly of: 'restore' | 'revert' | 'edit';
  } | null;
  readonly usage: {
    readonly inputTokens: number;
    readonly outputTokens: number;
    readonly modelMs: number;
    readonly costUsd: number;
    readonly toolCalls: number;
    /** Prompt tokens of the conversation's requests, as the app counted them, and those after each one's unchanged beginning: what a server had to read again. */
    readonly promptTokens: number;
    readonly rereadTokens: number;
    /** Prompt tokens the servers said they took from their caches, and wrote to a billed one. */
    readonly cacheReadTokens: number;
    readonly cacheWriteTokens: number;
    /** Model calls with no known price: `costUsd` counts them as nothing, so it is a lower bound when there are some. */
    readonly unpricedCalls: number;
  };
  /** Each turn's figures, by turn id, for the summary under its last message. */
  readonly turns: Readonly<Record<string, ViewTurn>>;
  /** What the newest model request took of the window; null before the first. */
  readonly context: ViewContext | null;
  /** What was going on when the app stopped, until the turn is resumed or discarded. */
  readonly interrupted: ViewInterruption | null;
  /** Things the person should know that are not messages: a damaged checkpoint that was skipped. */
  readonly warnings: readonly string[];
  /** Per file the agent changed and a server checked, its errors and warnings at the latest check. */
  readonly problems: Readonly<Record<string, { readonly errors: number; readonly warnings: number }>>;
  /** The tool calls the streaming response is writing, live only (see `tool-call-drafts.ts`). */
  readonly drafting: ViewDrafting | null;
}

/** How a turn ended: as its `run_finished` says, or `interrupted` when the app stopped while it ran. */
export type ViewTurnEnd = 'completed' | 'completed_with_errors' | 'failed' | 'cancelled' | 'interrupted';

/** One turn's figures, from the journal: its time, its model calls' tokens and cost, and the files it changed. */
export interface ViewTurn {
  /** Null while it runs. */
  readonly end: ViewTurnEnd | null;
  /** Milliseconds it ran, each stretch from a start (or a resume) to its end; null when its start was not read. */
  readonly durationMs: number | null;
  /** When the stretch running now began; null when none is running. */
  readonly runningSince: number | null;
  /** The newest step of the running stretch: where the app is taken to have stopped when it was interrupted. */
  readonly lastStepAt: number | null;
  readonly modelCalls: number;
  readonly inputTokens: number;
  readonly outputTokens: number;
  /** Of the input tokens, those the server said its cache served; null when no call's server said. */
  readonly cacheReadTokens: number | null;
  /** The cost of the calls with a price. */
  readonly costUsd: number;
  /** Calls with no known price, which `costUsd` counts as nothing. */
  readonly unpricedCalls: number;
  /** The paths the agent changed in the turn (what changed before it began is someone else's, and not listed). */
  readonly changedPaths: readonly string[];
  /** What the workspace's check command gave when it ran after the turn. */
  readonly check?: CheckResult;
}

export interface ViewCheckpoint {
  readonly id: string;
  readonly turnId: string;
  readonly seq: number;
  readonly source: string;
  readonly at: number;
  /** Files the agent changed in the step this checkpoint ends, when they were saved with it. */
  readonly filesChanged: readonly string[] | null;
  /** Where in the journal it was saved: a tool's checkpoint follows that tool's result. */
  readonly journalSeq?: number;
  /** Saved after the person answered a gate: what they answered. */
  readonly answer?: ViewGateAnswer;
}

/** The person's answer at a gate: to a call, to a plan, or to a result held for review. */
export type ViewGateAnswer =
  | { readonly gate: 'call'; readonly tool: string; readonly decision: ApprovalDecision }
  | { readonly gate: 'plan'; readonly decision: 'approve' | 'reject' | 'refine' }
  | { readonly gate: 'result'; readonly tool: string; readonly decision: ResultReviewDecision };

export interface ViewInterruption {
  readonly turnId: string | null;
  /** The call that was running (or about to), with its output so far. */
  readonly lastTool: {
    readonly id: string;
    readonly tool: string;
    readonly summary: string;
    readonly output: string;
    readonly state: ViewToolCallState;
  } | null;
  readonly approval: ViewApproval | null;
  readonly queued: string | null;
}

/** A commit of the agent's changes made from Changes, as History lists it. */
export interface ViewCommit {
  readonly commit: string;
  readonly branch: string | null;
  readonly subject: string;
  readonly paths: readonly string[];
  /** The turn whose changes it took, or null for the whole session's. */
  readonly turnId: string | null;
  readonly at: number;
}

/** A session's own worktree as the header shows it. */
export interface ViewWorktree {
  readonly branch: string;
  readonly root: string;
  readonly mainPath: string;
  /** The worktree's changes as they were when last brought back; null before that. */
  readonly broughtBack: string | null;
  readonly removed: boolean;
}
