import type { Attachment } from '../../../shared/attachments';
import type { ApprovalDecision, Branch } from '../../../shared/domain';
import type { BranchPoint, SessionTreeNode } from '../../../shared/branches';
import { WorkbenchError } from '../../../shared/errors';
import type { ResultReviewDecision } from '../../../shared/guardrails';
import type { BudgetAnswer } from '../../../shared/budgets';
import { DisposableStore, toDisposable } from '../../../shared/lifecycle';
import type { FilePreview, FilesRestored, RestoreMode } from '../../../shared/file-history';
import type { ChangeSet, FileDiff } from '../../../shared/changes';
import { ChangeReview } from './change-review';
import type { AccountingStore } from '../ports/accounting';
import type { CheckpointStore } from '../ports/checkpoints';
import type { Clock } from '../ports/clock';
import { ConversationStore } from '../history/conversation-store';
import { Gates } from '../rules/gates';
import { newId as defaultNewId } from '../ports/ids';
import { ContextBudget, defaultContextSettings, type ContextBudgetOptions, type ContextSettings } from '../context/prompt-builder';
import type { FileChanges, FileHistory, ProviderResolver, RuntimeListener } from '../ports/ports';
import { Recovery } from './recovery';
import { SessionJournal } from '../history/session-journal';
import type { SessionStore } from '../ports/stores';
import { TimeTravel } from './time-travel';
import type { ToolRegistry } from '../ports/tools';
import type { TrustStore } from '../ports/trust';
import { TurnScheduler, type RuntimeLimits, type SendResult } from './turn-scheduler';
import { Versions } from './versions';
import { describeToolsTool } from '../context/tool-catalogue';
import type { MemoryStore } from '../ports/memory';
import { turnProfile, type ProfileStore, type TurnProfile } from '../rules/profiles';
import { SystemPrompts, type PromptRecords, type PromptSources } from '../context/prompt-assembly';

export type { RuntimeLimits, SendResult } from './turn-scheduler';

export interface SessionRuntimeOptions {
  readonly store: SessionStore;
  readonly providers: ProviderResolver;
  readonly tools: ToolRegistry;
  readonly trust: TrustStore;
  readonly accounting: AccountingStore;
  readonly checkpoints: CheckpointStore;
  readonly files?: FileHistory;
  /** Compares and reverts what the agent changed, from the saved files (with `files`). */
  readonly changes?: FileChanges;
  readonly clock: Clock;
  readonly listener: RuntimeListener;
  readonly limits: () => RuntimeLimits;
  /** The share of the window that starts a compaction, and the room kept for answers. */
  readonly contextSettings?: () => ContextSettings;
  /** The extended-thinking budget of a model's requests, or null for none (see `ContextBudgetOptions`). */
  readonly thinkingBudget?: ContextBudgetOptions['thinkingBudget'];
  /** How long streamed pieces are gathered before one journal write and one message out. */
  readonly frameMs?: number;
  readonly newId?: () => string;
  /** The profile's instructions: the start of every system prompt. */
  readonly systemPrompt?: string;
  /** The project's instruction files and what the model is told of this computer. */
  readonly promptSources?: PromptSources;
  /** Memories, retrieved into each prompt by relevance to the person's latest message. */
  readonly memory?: MemoryStore;
  /** Where the system prompts sent are kept, for "what the model saw". */
  readonly promptRecords?: PromptRecords;
  /** Agent profiles, and the id of the one sessions use when none is chosen. */
  readonly profiles?: { readonly store: ProfileStore; readonly defaultId: () => string | null };
}

const defaultSystemPrompt = [
  'You are a careful assistant working with a person on a folder of their own.',
  'Read before you change: look at the files involved first, then make the smallest change that does what was asked.',
  'Use the tools when they help, say what you did and why, and ask when you are not sure what the person wants. Answer in Markdown.',
].join(' ');

/**
 * The agent runtime as the rest of the app sees it: the sessions' turns (`TurnScheduler`), their
 * versions (`Versions`), time travel over conversation and files (`TimeTravel`) and recovery after a
 * crash (`Recovery`), all writing through one `SessionJournal` and waiting at one set of `Gates`.
 */
export class SessionRuntime {
  readonly gates = new Gates();
  private readonly turns: TurnScheduler;
  private readonly versions: Versions;
  private readonly timeTravel: TimeTravel;
  private readonly changeReview: ChangeReview | null;
  private readonly recovery: Recovery;
  private readonly conversations: ConversationStore;
  private readonly store: SessionStore;
  /** Conversations being read ahead: none is read once the runtime is closing. */
  private readonly readsAhead = new DisposableStore();

  constructor(options: SessionRuntimeOptions) {
    const { store, clock } = options;
    const newId = options.newId ?? (() => defaultNewId(clock.now()));
    const journal = new SessionJournal(store, options.listener, clock);
    const conversations = new ConversationStore(options.checkpoints, store);
    // A catalogue of tools in place of their definitions (a small window) needs the tool that describes them; it knows
    // nothing of the tools the person denied, as the catalogue does not.
    const denied = (name: string): boolean => options.limits().deniedTools.includes(name);
    options.tools.registerHidden(
      describeToolsTool({
        get: (name) => (denied(name) ? undefined : options.tools.get(name)),
        list: () => options.tools.offered(options.limits().deniedTools),
      }),
    );
    const services = {
      tools: options.tools,
      trust: options.trust,
      accounting: options.accounting,
      checkpoints: options.checkpoints,
      ...(options.files ? { files: options.files } : {}),
      gates: this.gates,
      clock,
      journal,
      frameMs: options.frameMs ?? 16,
      context: new ContextBudget({
        window: (choice, signal) => options.providers.window(choice, signal),
        settings: options.contextSettings ?? (() => defaultContextSettings),
        ...(options.thinkingBudget ? { thinkingBudget: options.thinkingBudget } : {}),
      }),
      prompts: new SystemPrompts({
        profile: () => ({ name: 'Default', instructions: options.systemPrompt ?? defaultSystemPrompt }),
        ...(options.promptSources ? { sources: options.promptSources } : {}),
        ...(options.memory ? { memory: options.memory } : {}),
        ...(options.promptRecords ? { records: options.promptRecords } : {}),
        clock,
      }),
      newId,
    };
    this.conversations = conversations;
    this.store = store;
    this.turns = new TurnScheduler({
      store,
      providers: options.providers,
      conversations,
      journal,
      gates: this.gates,
      services,
      limits: options.limits,
      ...(options.profiles ? { profile: profileResolver(options.profiles.store, options.profiles.defaultId) } : {}),
    });
    this.versions = new Versions({ store, turns: this.turns, conversations, journal, clock, newId });
    const files = options.files ? { files: options.files } : {};
    this.timeTravel = new TimeTravel({ store, turns: this.turns, versions: this.versions, journal, clock, newId, ...files });
    this.changeReview =
      options.files && options.changes
        ? new ChangeReview({ store, turns: this.turns, journal, clock, newId, files: options.files, changes: options.changes })
        : null;
    this.recovery = new Recovery({ store, turns: this.turns, conversations, journal });
  }

  // Turns.
  isBusy = (sessionId: string): boolean => this.turns.isBusy(sessionId);
  anyBusy = (): boolean => this.turns.anyBusy();
  send = (sessionId: string, text: string, attachments: readonly Attachment[] = []): SendResult =>
    this.turns.send(sessionId, text, attachments);
  clearQueue = (sessionId: string): boolean => this.turns.clearQueue(sessionId);
  cancel = (sessionId: string): Promise<boolean> => this.turns.cancel(sessionId);
  whenIdle = (sessionId: string): Promise<void> => this.turns.whenIdle(sessionId);

  /**
   * Answers a call's gate. `trustEscalation`: with a timed or session decision at a gate whose call asks for more than
   * the sandbox, the grant covers that escalation too; it is asked for explicitly, never implied by the duration.
   */
  answerApproval(approvalId: string, decision: ApprovalDecision, reason?: string, options: { trustEscalation?: boolean } = {}): void {
    this.gates.answer(approvalId, 'approval', {
      decision,
      ...(reason === undefined ? {} : { reason }),
      ...(options.trustEscalation ? { trustEscalation: true } : {}),
    });
  }

  answerPlan(planId: string, answer: 'approve' | 'reject' | 'refine', text?: string): void {
    if (answer === 'refine' && !text?.trim()) throw new WorkbenchError('invalid_input', 'Say what should change in the plan.');
    this.gates.answer(planId, 'plan', text === undefined ? { answer } : { answer, text });
  }

  /** Answers a budget gate: `continue` gives the budget its step more, counted from now; `stop` ends the turn. */
  answerBudget(gateId: string, answer: BudgetAnswer): void {
    this.gates.answer(gateId, 'budget', { answer });
  }

  /** Answers a result held for review: `release` lets the model see it, `withhold` gives it a note instead. */
  answerReview(reviewId: string, decision: ResultReviewDecision): void {
    this.gates.answer(reviewId, 'review', { decision });
  }

  // Versions.
  editMessage = (sessionId: string, messageId: string, text: string): { turnId: string; branchId: string } =>
    this.versions.edit(sessionId, messageId, text);
  /** Summarizes the older part of the conversation now, as a turn of its own. */
  compact = (sessionId: string, instructions: string | null): string => {
    this.turns.assertIdle(sessionId);
    return this.turns.start(sessionId, {
      text: null,
      begin: () => ({ kind: 'compact', trigger: 'manual', then: 'finish', ...(instructions ? { instructions } : {}) }),
    });
  };
  retryTurn = (sessionId: string, turnId: string): { turnId: string; branchId: string } => this.versions.retry(sessionId, turnId);
  restoreCheckpoint = (sessionId: string, checkpointId: string): { branchId: string; recovered: boolean } =>
    this.versions.restoreConversation(sessionId, checkpointId);
  switchBranch = (sessionId: string, branchId: string): Branch => this.versions.switchTo(sessionId, branchId);
  branchPoints = (sessionId: string): BranchPoint[] => this.versions.points(sessionId);
  tree = (sessionId: string): SessionTreeNode | null => this.versions.tree(sessionId);

  // Time travel.
  previewFiles = (sessionId: string, checkpointId: string): Promise<FilePreview> => this.timeTravel.preview(sessionId, checkpointId);
  restore = (sessionId: string, checkpointId: string, mode: RestoreMode, overwriteConflicts = false) =>
    this.timeTravel.restore(sessionId, checkpointId, mode, overwriteConflicts);
  undoRestore = (sessionId: string, restoreId: string): Promise<FilesRestored> => this.timeTravel.undo(sessionId, restoreId);

  // Changes.
  listChanges = (sessionId: string, turnId: string | null): Promise<ChangeSet> => this.review().list(sessionId, turnId);
  diffChange = (sessionId: string, turnId: string | null, path: string): Promise<FileDiff> => this.review().diff(sessionId, turnId, path);
  revertChange = (sessionId: string, turnId: string | null, path: string, hunks: readonly number[] | null): Promise<FilesRestored> =>
    this.review().revert(sessionId, turnId, path, hunks);
  private review(): ChangeReview {
    if (!this.changeReview)
      throw new WorkbenchError('invalid_state', 'Files are not saved in this setup, so there are no changes to review.');
    return this.changeReview;
  }

  // Recovery.
  recoverInterrupted = (): string[] => this.recovery.recoverInterrupted();
  resume = (sessionId: string): { turnId: string | null } => this.recovery.resume(sessionId);
  discard = (sessionId: string): { queued: string | null } => this.recovery.discard(sessionId);
  recoverRestored = (sessionId: string): void => this.recovery.recoverRestored(sessionId);
  /** Throws `session_busy` while a turn runs or files are being restored. */
  assertIdle = (sessionId: string): void => this.turns.assertIdle(sessionId);

  /**
   * The person opened a session: its conversation is read ahead, once the open has been answered,
   * so a message sent next starts at once.
   */
  prepare(sessionId: string): void {
    const task = setImmediate(() => {
      this.readsAhead.forget(owned);
      try {
        if (this.turns.isBusy(sessionId)) return;
        this.conversations.prepare(sessionId, this.store.head(sessionId).checkpointId);
      } catch {
        // A session deleted meanwhile, or a damaged checkpoint: the next turn says what is wrong.
      }
    });
    const owned = this.readsAhead.add(toDisposable(() => clearImmediate(task)));
  }

  /** A session was deleted: nothing of it is kept in memory. */
  forget(sessionId: string): void {
    this.conversations.forget(sessionId);
  }

  async dispose(): Promise<void> {
    await this.readsAhead.dispose();
    await this.turns.dispose();
  }
}

/** The profile of each session's next turn, from the store and the default profile's id. */
function profileResolver(
  store: ProfileStore,
  defaultId: () => string | null,
): (sessionId: string, workspacePath: string | null) => TurnProfile {
  return (sessionId, workspacePath) => turnProfile(store, sessionId, workspacePath, defaultId());
}
