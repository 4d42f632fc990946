import type { Autonomy, ModelChoice, ProviderKind, SessionStatus } from '../../../shared/domain';
import type { Attachment } from '../../../shared/attachments';
import type { ErrorInfo } from '../../../shared/errors';
import type { InjectionSign } from '../../../shared/guardrails';
import type { RuntimeEvent, ToolCallDraftEvent, ToolCallStatus } from '../../../shared/events';
import type { BudgetSettings, SessionAllowance } from '../../../shared/budgets';
import type { AccountingStore } from '../ports/accounting';
import type { BudgetReached, BudgetTally } from '../rules/budget-tally';
import type { CheckpointStore } from '../ports/checkpoints';
import type { Clock } from '../ports/clock';
import type { ApprovalAnswer, Gates } from '../rules/gates';
import type { ConversationEntry } from '../context/context-view';
import type { ModelProvider, ToolCallRequest } from '../ports/model-provider';
import type { ContextBudget } from '../context/prompt-builder';
import type { TurnProfile } from '../rules/profiles';
import type { SystemPrompts } from '../context/prompt-assembly';
import type { Decision } from '../rules/policy';
import type { FileHistory } from '../ports/ports';
import type { SessionJournal } from '../history/session-journal';
import type { StreamedEvent } from './delta-coalescer';
import type { RiskAssessment, Tool, ToolRegistry } from '../ports/tools';
import type { TrustStore } from '../ports/trust';

/* The types a turn's steps share: what is fixed for the turn, what it uses, and its loop's states. */

/** Everything fixed for one turn. */
export interface TurnSetup {
  readonly sessionId: string;
  readonly turnId: string;
  readonly autonomy: Autonomy;
  readonly workspacePath: string | null;
  readonly choice: ModelChoice;
  readonly endpoint: { readonly kind: ProviderKind; readonly baseUrl: string };
  readonly provider: ModelProvider;
  /** The profile the turn runs with, at the version it found when it started. */
  readonly profile: TurnProfile | null;
  /** The profile's fallback model, used for the rest of the turn once the first cannot be reached or is overloaded. */
  readonly fallback: {
    readonly choice: ModelChoice;
    readonly endpoint: { readonly kind: ProviderKind; readonly baseUrl: string };
    readonly provider: ModelProvider;
  } | null;
  readonly history: readonly ConversationEntry[];
  /** The person's message; null when the turn answers the last one again (a retry) or resumes. */
  readonly userText: string | null;
  /** Files attached to the person's message, as journalled with it. */
  readonly userAttachments?: readonly Attachment[];
  /** Messages of `history` not yet in any checkpoint (a session journalled before checkpoints existed). */
  readonly unsavedHistory?: readonly ConversationEntry[];
  readonly planThreshold: number;
  /** The model-call budget of the turn; null: off. */
  readonly maxIterations: number | null;
  /** The other budgets (off when absent), read at every check: a budget changed in Settings applies at the next one. */
  readonly budgets?: () => BudgetSettings;
  /** The session's budgets as raised at their gates before this turn (see `budget_answered`). */
  readonly sessionAllowance?: SessionAllowance;
  /**
   * The tools denied in Settings, read at every model request and every decision: a tool denied while the turn
   * runs is neither offered nor run from then on.
   */
  readonly deniedTools: () => readonly string[];
  /** The tool groups whose flagged results are held for the person (`defaultHeldToolGroups` when absent), read at each result. */
  readonly heldToolGroups?: () => readonly string[] | undefined;
  /** The session's newest checkpoint: this turn's checkpoints continue its chain. */
  readonly checkpointHead: { readonly checkpointId: string; readonly seq: number } | null;
}

/** What a turn uses. */
export interface TurnServices {
  readonly tools: ToolRegistry;
  readonly trust: TrustStore;
  readonly accounting: AccountingStore;
  readonly checkpoints: CheckpointStore;
  /** Saves the workspace's files around every call that may change them, for time travel. */
  readonly files?: FileHistory;
  readonly gates: Gates;
  readonly clock: Clock;
  readonly journal: SessionJournal;
  /** How long streamed pieces are gathered before one journal write and one message out. */
  readonly frameMs: number;
  /** What each model request may take of the window, and the view of the conversation that fits it. */
  readonly context: ContextBudget;
  /** The system prompt of each model request, and the record of what was sent. */
  readonly prompts: SystemPrompts;
  newId(): string;
}

/**
 * Where a turn's steps write what they did (the port the model step and the tool steps share, so
 * neither knows the other): events to journal, writes that land with them, the conversation, a
 * checkpoint after each step, and the files around calls that change them.
 */
export interface StepWriter {
  readonly signal: AbortSignal;
  /** The conversation, compactions included: what the model's view is built from. */
  readonly messages: readonly ConversationEntry[];
  /** Model calls made so far in this turn. */
  iterations: number;
  /** A compaction was made since the last model call: what still does not fit is shortened instead. */
  compacted: boolean;
  /** A request was refused as too large and compacted once: a second refusal ends the turn. */
  overflowRetried: boolean;
  /** The first model could not answer: the rest of the turn asks the profile's fallback. */
  usingFallback: boolean;
  /** A journal write failed under a stream: the turn stops, and ends failed with this. */
  readonly failure: ErrorInfo | null;
  /** Text of a response cut short by Stop or an error: saved with the turn's end. */
  cutShort: string;
  /** Adds events to the next flush. */
  journal(events: readonly RuntimeEvent[]): void;
  /** A write (accounting, a grant) that lands in the same transaction as the next flush. */
  stage(write: () => void): void;
  /** Journals and announces everything so far, in one transaction; runs before every side effect. */
  flush(): void;
  /**
   * Writes what is buffered within a frame, with whatever else comes meanwhile: for events that
   * announce nothing irreversible (a read-only call starting), which need not cost a commit of
   * their own.
   */
  flushWithinFrame(): void;
  /** Streams a piece (text, reasoning, tool output), journalled and sent with the others of its frame. */
  stream(piece: StreamedEvent): void;
  /**
   * Shows a piece of a tool call the model is still writing, sent with the others of its frame and
   * never journalled: the call is journalled whole (`tool_call_requested`) once the response is complete.
   */
  draft(piece: ToolCallDraftEvent): void;
  /** The response has ended: drafts not yet sent are dropped, superseded by its calls or never sent. */
  dropDrafts(): void;
  setStatus(status: SessionStatus): void;
  addMessage(message: ConversationEntry): void;
  addToolResult(request: ToolCallRequest, content: string, status: ToolCallStatus): void;
  /** Saves a checkpoint of the step just taken, in the same transaction as its events. */
  checkpoint(source: 'input' | 'model' | 'tool' | 'approval' | 'compaction'): void;
  /** Saves the workspace's files as they are now, for time travel. */
  captureFiles(): Promise<void>;
}

/** What a step works with: the turn's setup and services, and the writer of its results. */
export interface StepContext {
  readonly setup: TurnSetup;
  readonly services: TurnServices;
  readonly writer: StepWriter;
  /** What the turn has spent of its budgets, and the limits raised at their gates. */
  readonly budget: BudgetTally;
}

/** A tool call as the model asked for it, parsed and assessed, or the reason it cannot run. */
export interface PreparedCall {
  readonly request: ToolCallRequest;
  readonly tool: Tool | null;
  readonly rawInput: unknown;
  readonly input: unknown;
  readonly invalid: string | null;
  readonly assessment: RiskAssessment;
  readonly summary: string;
  /** What the call would change; computed once the response is complete, or when its gate opens. */
  preview: string | null;
}

/** A gate a call reached before the app stopped: it opens again as it was, or its answer is taken as given. */
export interface EarlierGate {
  readonly approvalId: string;
  readonly answer: ApprovalAnswer | null;
}

/** A call that can run, with what the rules decided for it. */
export interface DecidedCall {
  readonly call: PreparedCall & { readonly tool: Tool };
  readonly decision: Decision;
  /** The person allowed it at its gate. */
  readonly approved?: boolean;
  readonly earlierGate?: EarlierGate;
}

/**
 * What happens next: the loop's whole state machine is this union and one switch over it. Waiting
 * at a gate is a state like the others: the loop holds it, awaits the answer and goes on from it,
 * and a turn resumed after the app stopped starts from the same state.
 */
export type LoopState =
  | { readonly kind: 'model' }
  /**
   * Older messages are summarized so the conversation fits the window: before a request over the
   * threshold, after the server refused one as too large, or because the person asked.
   */
  | {
      readonly kind: 'compact';
      readonly trigger: 'threshold' | 'overflow' | 'manual';
      readonly instructions?: string;
      /** A compaction the person asked for ends the turn; the others go on to the model. */
      readonly then: 'model' | 'finish';
    }
  /** A response's calls, to be decided (and shown as a plan when there are enough of them). */
  | { readonly kind: 'decide'; readonly calls: readonly PreparedCall[]; readonly purpose: string }
  /** A plan waits for the person. */
  | { readonly kind: 'plan'; readonly planId: string; readonly runnable: readonly DecidedCall[] }
  /** Calls to run in order; consecutive read-only ones that may run go together. */
  | { readonly kind: 'execute'; readonly queue: readonly DecidedCall[]; readonly fromPlan: boolean }
  /** One call waits at its gate; `queue` comes after it. */
  | {
      readonly kind: 'approval';
      readonly approvalId: string;
      readonly item: DecidedCall;
      readonly queue: readonly DecidedCall[];
      readonly fromPlan: boolean;
    }
  /** Flagged results wait for the person, the first one first; `then` is where the loop goes after the last. */
  | { readonly kind: 'review'; readonly held: readonly HeldResult[]; readonly then: LoopState }
  /** A budget was reached: the loop waits for the person, and goes on to `then` when they give it `step` more. */
  | (BudgetReached & { readonly kind: 'budget'; readonly gateId: string; readonly step: number; readonly then: LoopState })
  | { readonly kind: 'finish'; readonly status: 'completed' | 'failed' | 'cancelled'; readonly error?: ErrorInfo };

/** A call's result that signs of a prompt injection hold for the person before the model is given it. */
export interface HeldResult {
  readonly reviewId: string;
  readonly request: ToolCallRequest;
  /** What the model is given when the person lets it in. */
  readonly output: string;
  readonly status: ToolCallStatus;
  readonly signs: readonly InjectionSign[];
}
