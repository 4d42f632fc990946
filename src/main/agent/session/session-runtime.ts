/*
 * The agent runtime as the rest of the app sees it: sessions, turns, versions, time travel, changes and recovery
 * behind one face.
 */
import type { GitCommitter, WorktreeMaker } from '../ports/git';
import { SessionWorktrees } from './session-worktrees';
import type { GitCommit } from '../../../shared/git';
import { SessionCommits, type CommitDraft } from './session-commits';
import type { Attachment } from '../../../shared/attachments';
import type { ApprovalDecision, Branch } from '../../../shared/domain';
import type { BranchPoint, SessionTreeNode } from '../../../shared/branches';
import { WorkbenchError } from '../../../shared/errors';
import type { ResultReviewDecision } from '../../../shared/guardrails';
import type { BudgetAnswer } from '../../../shared/budgets';
import { DisposableStore, toDisposable } from '../../../shared/lifecycle';
import type { FilePreview, FilesRestored, RestoreMode } from '../../../shared/file-history';
import type { ChangeSet, FileDiff } from '../../../shared/changes';
import type { FileChanges, ProviderResolver, WorkspaceInspector } from '../ports/ports';
import type { SessionStore } from '../ports/stores';
import type { Gates } from '../rules/gates';
import { turnProfile, type ProfileStore, type TurnProfile } from '../rules/profiles';
import type { ConversationStore } from '../history/conversation-store';
import type { SessionJournal } from '../history/session-journal';
import { freshProgress } from '../turn/loop-state';
import type { TurnServices } from '../turn/step-context';
import { ChangeReview } from './change-review';
import { Recovery } from './recovery';
import { Sessions, type SessionDefaults } from './sessions';
import { TimeTravel } from './time-travel';
import { runPlanTool } from './plan-graph';
import { SubAgents } from './sub-agents';
import { delegateToolName, TurnScheduler, type RuntimeLimits, type SendResult } from './turn-scheduler';
import { Versions } from './versions';

export type { RuntimeLimits, SendResult } from './turn-scheduler';

export interface SessionRuntimeOptions {
  readonly store: SessionStore;
  readonly providers: ProviderResolver;
  /** The one way the session's journal is written, and where its lines stand. */
  readonly journal: SessionJournal;
  /** The conversation at a checkpoint, the latest of each session kept. */
  readonly conversations: ConversationStore;
  /** What every turn uses: tools, rules' stores, the gates, the context budget, the system prompts, the clock. */
  readonly turn: TurnServices;
  /** Compares and reverts what the agent changed, from the saved files (with `turn.files`). */
  readonly changes?: FileChanges;
  readonly limits: () => RuntimeLimits;
  /** Checks the folders the person chooses as workspaces. */
  readonly workspaces: WorkspaceInspector;
  /** What new sessions start with. */
  readonly defaults: () => SessionDefaults;
  /** Whether a model endpoint of this id is configured. */
  readonly providerExists: (providerId: string) => boolean;
  /** Agent profiles, and the id of the one sessions use when none is chosen. */
  readonly profiles?: { readonly store: ProfileStore; readonly defaultId: () => string | null };
  /** Commits of the agent's changes from Changes; none without git. */
  readonly git?: GitCommitter;
  /** Worktrees of the person's repositories for sessions of their own; none without git. */
  readonly worktrees?: WorktreeMaker;
}

/**
 * The agent runtime as the rest of the app sees it: the sessions themselves (`Sessions`), their turns
 * (`TurnScheduler`), their versions (`Versions`), time travel over conversation and files (`TimeTravel`)
 * and recovery after a crash (`Recovery`), all writing through the one `SessionJournal` it is given and
 * waiting at the turn services' `Gates`.
 */
export class SessionRuntime {
  readonly gates: Gates;
  /** Making sessions, and changing their title, model, autonomy, workspace and profile. */
  readonly sessions: Sessions;
  private readonly turns: TurnScheduler;
  private readonly versions: Versions;
  private readonly timeTravel: TimeTravel;
  private readonly changeReview: ChangeReview | null;
  private readonly commits: SessionCommits | null;
  private readonly sessionWorktrees: SessionWorktrees | null;
  private readonly recovery: Recovery;
  /** The `delegate` tool and the sessions of sub-agents. */
  readonly subAgents: SubAgents;
  private readonly conversations: ConversationStore;
  private readonly journal: SessionJournal;
  /** Conversations being read ahead: none is read once the runtime is closing. */
  private readonly readsAhead = new DisposableStore();

  constructor(options: SessionRuntimeOptions) {
    const { store, journal, conversations, turn: services } = options;
    const { clock, newId, files } = services;
    this.gates = services.gates;
    this.conversations = conversations;
    this.journal = journal;
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
    this.sessions = new Sessions({
      store,
      journal,
      clock,
      newId,
      workspaces: options.workspaces,
      defaults: options.defaults,
      providerExists: options.providerExists,
      isBusy: (sessionId) => this.turns.isBusy(sessionId),
      ...(options.profiles ? { profiles: options.profiles.store } : {}),
    });
    this.versions = new Versions({ store, turns: this.turns, conversations, journal, clock, newId });
    this.timeTravel = new TimeTravel({
      store,
      turns: this.turns,
      versions: this.versions,
      journal,
      clock,
      newId,
      ...(files ? { files } : {}),
      ...(options.git ? { git: options.git } : {}),
    });
    this.changeReview =
      files && options.changes
        ? new ChangeReview({ store, turns: this.turns, journal, clock, newId, files, changes: options.changes })
        : null;
    const review = this.changeReview;
    const git = options.git;
    this.commits =
      review && git
        ? new SessionCommits({
            store,
            journal,
            git,
            providers: options.providers,
            changes: (sessionId, turnId) => review.list(sessionId, turnId),
            diff: (sessionId, turnId, path) => review.diff(sessionId, turnId, path),
            assertIdle: (sessionId) => this.turns.assertIdle(sessionId),
          })
        : null;
    const maker = options.worktrees;
    this.sessionWorktrees = maker
      ? new SessionWorktrees({
          store,
          journal,
          worktrees: maker,
          createSession: (input) => this.sessions.create(input),
          assertIdle: (sessionId) => this.turns.assertIdle(sessionId),
        })
      : null;
    this.recovery = new Recovery({ store, turns: this.turns, conversations, journal, gates: this.gates });
    this.subAgents = new SubAgents({
      store,
      turns: this.turns,
      journal,
      conversations,
      recovery: this.recovery,
      clock,
      newId,
      limits: () => {
        const { subAgentConcurrency, subAgentDepth } = options.limits();
        return { concurrency: subAgentConcurrency ?? 2, depth: subAgentDepth ?? 0 };
      },
      windowOf: async (choice, signal) => (await services.context.window(choice, signal)).tokens,
      serverConcurrency: async (choice, signal) => (await options.providers.resolve(choice).concurrency?.(signal)) ?? null,
      modelsOf: async (choice, signal) => (await options.providers.resolve(choice).listModels(signal)).map((model) => model.id),
      ...(options.profiles ? { inheritProfile: inheritProfile(options.profiles.store) } : {}),
      ...(options.worktrees ? { worktrees: options.worktrees } : {}),
    });
    // The runtime's own tool: it runs sessions of this runtime. A registry shared by two runtimes keeps the first.
    if (!services.tools.get(delegateToolName)) {
      services.tools.register(this.subAgents.tool());
      services.tools.register(runPlanTool(this.subAgents));
    }
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
   * `folder`: one the gate offered; the grant covers the tool on any path in it (never with an escalation).
   */
  answerApproval(
    approvalId: string,
    decision: ApprovalDecision,
    reason?: string,
    options: { trustEscalation?: boolean; folder?: string; content?: string } = {},
  ): void {
    if (options.content !== undefined) {
      if (decision === 'deny') throw new WorkbenchError('invalid_input', 'A changed version goes with an approval, not a denial.');
      const { editable } = this.gates.assertPending(approvalId, 'approval');
      if (!editable) throw new WorkbenchError('invalid_input', "Only a write's or an edit's content can be changed at its gate.");
      const refused = editable(options.content);
      if (refused !== null) throw new WorkbenchError('invalid_input', `Your version cannot be used: ${refused}`);
    }
    this.gates.answer(approvalId, 'approval', {
      ...(options.content === undefined ? {} : { content: options.content }),
      decision,
      ...(reason === undefined ? {} : { reason }),
      ...(options.trustEscalation ? { trustEscalation: true } : {}),
      ...(options.folder === undefined ? {} : { folder: options.folder }),
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
  /** Edits a message and puts the files back as they were when it was sent, undone together (see `TimeTravel.editWithFiles`). */
  editMessageWithFiles = (sessionId: string, messageId: string, text: string, overwriteConflicts = false) =>
    this.timeTravel.editWithFiles(sessionId, messageId, text, overwriteConflicts);
  /** Summarizes the older part of the conversation now, as a turn of its own. */
  compact = (sessionId: string, instructions: string | null): string => {
    this.turns.assertIdle(sessionId);
    return this.turns.start(sessionId, {
      text: null,
      begin: () => ({
        next: { kind: 'compact', trigger: 'manual', then: 'finish', ...(instructions ? { instructions } : {}) },
        progress: freshProgress,
      }),
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

  // Commits of the agent's changes.
  draftCommit = (sessionId: string, turnId: string | null, signal: AbortSignal): Promise<CommitDraft> =>
    this.committer().draft(sessionId, turnId, signal);
  commitChanges = (sessionId: string, turnId: string | null, message: string): Promise<GitCommit> =>
    this.committer().commit(sessionId, turnId, message);
  /** Sessions in worktrees of their own; throws where git is not there. */
  worktrees(): SessionWorktrees {
    if (!this.sessionWorktrees) throw new WorkbenchError('git_unavailable', 'Worktrees need git, which is not on this computer.');
    return this.sessionWorktrees;
  }
  private committer(): SessionCommits {
    if (!this.commits) throw new WorkbenchError('git_unavailable', 'Commits need git and saved files; neither is set up here.');
    return this.commits;
  }
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
        this.conversations.prepare(sessionId, this.journal.head(sessionId).checkpointId);
      } catch {
        // A session deleted meanwhile, or a damaged checkpoint: the next turn says what is wrong.
      }
    });
    const owned = this.readsAhead.add(toDisposable(() => clearImmediate(task)));
  }

  /** Tells the UI a session's row changed (an imported session, say). */
  announceSession(sessionId: string): void {
    this.journal.announceSession(sessionId);
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
/** A sub-agent runs with its parent's profile and the tool groups switched off there, when the parent has chosen one. */
function inheritProfile(store: ProfileStore): (parentId: string, childId: string) => void {
  return (parentId, childId) => {
    const chosen = store.sessionProfile(parentId);
    if (chosen) store.setSessionProfile(childId, chosen.profileId, chosen.toolGroupsOff);
  };
}

function profileResolver(
  store: ProfileStore,
  defaultId: () => string | null,
): (sessionId: string, workspacePath: string | null) => TurnProfile {
  return (sessionId, workspacePath) => turnProfile(store, sessionId, workspacePath, defaultId());
}
