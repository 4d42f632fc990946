/* What a turn's steps share: what is fixed for the turn, what it uses, and where they write what they did. */
import type { GitHeads } from '../ports/git';
import type { Autonomy, GateTimeout, ModelPrice, SessionStatus, SubAgentLink } from '../../../shared/domain';
import type { Attachment } from '../../../shared/attachments';
import type { ErrorInfo } from '../../../shared/errors';
import type { RuntimeEvent, ToolCallDraftEvent, ToolCallStatus } from '../../../shared/events';
import type { BudgetSettings, SessionAllowance } from '../../../shared/budgets';
import type { AccountingStore } from '../ports/accounting';
import type { BudgetTally } from '../rules/budget-tally';
import type { CheckpointStore } from '../ports/checkpoints';
import type { Clock, SteadyClock } from '../ports/clock';
import type { Gates } from '../rules/gates';
import type { ConversationEntry } from '../context/context-view';
import type { ToolCallRequest } from '../ports/model-provider';
import type { ContextBudget } from '../context/prompt-builder';
import type { TurnProfile } from '../rules/profiles';
import type { SystemPrompts } from '../context/prompt-assembly';
import type { FileHistory } from '../ports/ports';
import type { SessionJournal } from '../history/session-journal';
import type { StreamedEvent } from './delta-coalescer';
import type { ToolRegistry, WorkspaceToolSource } from '../ports/tools';
import type { ModelInUse, TurnProgress } from './loop-state';
import type { TrustStore } from '../ports/trust';
import type { GivenCodeMap } from '../../../shared/events';
import type { CodeMapSource } from '../ports/code-map';
import type { DiagnosticsSource } from '../ports/diagnostics';
import type { CheckRunner } from '../ports/checks';
import { isRestricted, type FolderTrustSource } from '../ports/folder-trust';
import { effectiveAutonomy } from '../rules/policy';

/** Everything fixed for one turn; the model it asks first is its own `choice`, `endpoint` and `provider`. */
export interface TurnSetup extends ModelInUse {
  readonly sessionId: string;
  /** When the session began: the date its system prompt says, the same at every request (a later one is told in a message). */
  readonly sessionStartedAt?: number;
  readonly turnId: string;
  readonly autonomy: Autonomy;
  readonly workspacePath: string | null;
  /** The profile the turn runs with, at the version it found when it started. */
  readonly profile: TurnProfile | null;
  /** The profile's fallback model, used for the rest of the turn once the first cannot be reached or is overloaded. */
  readonly fallback: ModelInUse | null;
  readonly history: readonly ConversationEntry[];
  /** The person's message; null when the turn answers the last one again (a retry) or resumes. */
  readonly userText: string | null;
  /** Files attached to the person's message, as journalled with it. */
  readonly userAttachments?: readonly Attachment[];
  /** Messages of `history` not yet in any checkpoint (a session journalled before checkpoints existed). */
  readonly unsavedHistory?: readonly ConversationEntry[];
  readonly planThreshold: number;
  /** The share of the window the repository map given with the person's message may take; 0 or absent: no map. */
  readonly codeMapShare?: number;
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
  /**
   * Of `deniedTools`, those the session may not use whatever the person allows: a read-only sub-agent's tools that
   * change anything, and `delegate` where it would go deeper than the settings allow. A call to one is refused saying so.
   */
  readonly outOfReach?: () => readonly string[];
  /** How long approval gates wait at each autonomy level, read as each opens (none when absent: gates wait until answered). */
  readonly gateTimeout?: () => GateTimeout | undefined;
  /** The tool groups whose flagged results are held for the person (`defaultHeldToolGroups` when absent), read at each result. */
  readonly heldToolGroups?: () => readonly string[] | undefined;
  /** The person's prices per model (none when absent), read at every model call: a price set while the turn runs counts from its next call. */
  readonly prices?: () => readonly ModelPrice[];
  /** The session's newest checkpoint: this turn's checkpoints continue its chain. */
  readonly checkpointHead: { readonly checkpointId: string; readonly seq: number } | null;
  /** A sub-agent's turn: a budget it reaches ends it (failed, saying so) instead of waiting for the person. */
  readonly subAgent?: SubAgentLink;
  /**
   * A sub-agent's: the session the person started, at the top of its tree. Its "this session" grants cover the
   * sub-agent, and one given at the sub-agent's gate is for that session, the person's, not the sub-agent's alone.
   */
  readonly rootSessionId?: string;
}

/** What a turn uses. */
export interface TurnServices {
  readonly tools: ToolRegistry;
  /** What a session's folder brings of its own tools (its MCP servers), made ready before the turn asks the model; none: nothing. */
  readonly workspaceTools?: WorkspaceToolSource;
  readonly trust: TrustStore;
  readonly accounting: AccountingStore;
  readonly checkpoints: CheckpointStore;
  /** Saves the workspace's files around every call that may change them, for time travel. */
  readonly files?: FileHistory;
  readonly gates: Gates;
  readonly clock: Clock;
  /** Time that cannot be turned back, for gates' deadlines; the clock's own time when absent. */
  readonly steady?: SteadyClock;
  readonly journal: SessionJournal;
  /** How long streamed pieces are gathered before one journal write and one message out. */
  readonly frameMs: number;
  /** What each model request may take of the window, and the view of the conversation that fits it. */
  readonly context: ContextBudget;
  /** The system prompt of each model request, and the record of what was sent. */
  readonly prompts: SystemPrompts;
  /** The repository map given with the person's message; none without it. */
  readonly codeMap?: CodeMapSource;
  /** The problems in the files a call changed, given with its result; none without it. */
  readonly diagnostics?: DiagnosticsSource;
  /** The workspace's check command, run after a turn that changed files when the person asked for that. */
  readonly checks?: CheckRunner;
  /** The commit the workspace has checked out, recorded with each checkpoint; none outside a repository. */
  readonly git?: GitHeads;
  /**
   * The person's trust in folders, read at every decision and every prompt: a session in a folder not trusted runs
   * restricted (autonomy L1 at most, no grant counts, the folder's instruction files not given). None: every folder is trusted.
   */
  readonly folderTrust?: FolderTrustSource;
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
  /** A journal write failed under a stream: the turn stops, and ends failed with this. */
  readonly failure: ErrorInfo | null;
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
  /** Gives the person's new message the memories recalled for it, and the repository map made for it. */
  recallMemories(block: string, memories: ReadonlyArray<{ readonly id: string; readonly text: string }>, map?: GivenCodeMap): void;
  addToolResult(request: ToolCallRequest, content: string, status: ToolCallStatus): void;
  /** Saves a checkpoint of the step just taken, in the same transaction as its events. */
  checkpoint(source: 'input' | 'model' | 'tool' | 'approval' | 'compaction'): void;
  /** Saves the workspace's files as they are now, for time travel; returns the paths that changed since the last save. */
  captureFiles(): Promise<readonly string[]>;
  /** Saves the workspace's files now and says what changed; the save is journalled on `announce` (after the call's result). */
  snapshotFiles(): Promise<{ readonly changed: readonly string[]; announce(): void }>;
}

/** What a step works with: the turn's setup and services, and the writer of its results. */
export interface StepContext {
  readonly setup: TurnSetup;
  readonly services: TurnServices;
  readonly writer: StepWriter;
  /** What the turn has spent of its budgets, and the limits raised at their gates. */
  readonly budget: BudgetTally;
  /** The turn's progress as the loop holds it: read here, changed only by the loop (see `Advance`). */
  progress(): TurnProgress;
}

/** The autonomy a turn's decisions and prompt go by now: the session's, capped at L1 while its folder is not trusted. */
export function autonomyNow({ setup, services }: Pick<StepContext, 'setup' | 'services'>): { autonomy: Autonomy; restricted: boolean } {
  const restricted = isRestricted(services.folderTrust, setup.workspacePath);
  return { autonomy: effectiveAutonomy(setup.autonomy, restricted), restricted };
}
