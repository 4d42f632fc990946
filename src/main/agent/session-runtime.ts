import { busyStatuses, type ApprovalDecision, type Branch, type BranchReason, type ModelChoice } from '../../shared/domain';
import type { BranchPoint, SessionTreeNode } from '../../shared/branches';
import { NotFoundError, WorkbenchError } from '../../shared/errors';
import type { JournalEntry, RuntimeEvent } from '../../shared/events';
import { branchLine, branchPoints, ownerOf, sessionTree } from './branching';
import type { AccountingStore } from './accounting';
import type { Clock } from './clock';
import { answerDanglingCalls, checkpointHead, conversationFromJournal, parseCheckpointMessages } from './conversation';
import type { CheckpointStore } from './checkpoints';
import { Gates } from './gates';
import { newId as defaultNewId } from './ids';
import type { FileHistory, ProviderResolver, RuntimeListener } from './ports';
import type { FilePreview, FilesRestored, RestoreMode } from '../../shared/file-history';
import type { SessionStore } from './stores';
import type { ToolRegistry } from './tools';
import type { TrustStore } from './trust';
import type { ChatMessage } from './model-provider';
import { FileRestorer } from './file-restorer';
import { checkpointRow, leftoverQueue, openTurn, resumePoint, snapshotAt } from './journal-reading';
import { Turn, type ResumePoint, type TurnSetup } from './turn';

/** The conversation a turn starts from, and the checkpoint its own checkpoints hang off. */
interface Base {
  readonly history: readonly ChatMessage[];
  readonly head: { readonly checkpointId: string; readonly seq: number } | null;
  readonly unsavedHistory?: readonly ChatMessage[];
  readonly warnings: readonly RuntimeEvent[];
}

interface StartInput {
  readonly text: string | null;
  readonly turnId?: string;
  readonly resume?: ResumePoint;
  readonly base?: Base;
  /** Writes that must land before the turn's first event (a new branch), once nothing can refuse the start. */
  readonly before?: () => RuntimeEvent[];
}

/** Where a new branch leaves its parent's line. */
interface Fork {
  readonly parentId: string;
  readonly forkSeq: number;
  readonly checkpointId: string | null;
  readonly base: Base;
}

/** Limits a turn reads when it starts; they are settings. */
export interface RuntimeLimits {
  readonly planThreshold: number;
  readonly maxIterations: number;
  readonly deniedTools: readonly string[];
}

export interface SessionRuntimeOptions {
  readonly store: SessionStore;
  readonly providers: ProviderResolver;
  readonly tools: ToolRegistry;
  readonly trust: TrustStore;
  readonly accounting: AccountingStore;
  readonly checkpoints: CheckpointStore;
  readonly files?: FileHistory;
  readonly clock: Clock;
  readonly listener: RuntimeListener;
  readonly limits: () => RuntimeLimits;
  /** How long streamed pieces are gathered before one journal write and one message out. */
  readonly frameMs?: number;
  readonly newId?: () => string;
  readonly systemPrompt?: string;
}

interface ActiveTurn {
  readonly turnId: string;
  readonly controller: AbortController;
  readonly finished: Promise<void>;
}

const defaultSystemPrompt =
  'You are a careful assistant working with a person on a folder of their own. Use the tools when they help, explain what you do, and answer in Markdown.';

export type SendResult = { readonly turnId: string; readonly queued: false } | { readonly turnId: null; readonly queued: true };

/**
 * Sessions' turns: starts them, queues one message while a turn runs, routes answers to the gates
 * a turn waits at, and stops turns. Every turn ends in a terminal status, whatever happens.
 */
export class SessionRuntime {
  readonly gates = new Gates();
  private readonly active = new Map<string, ActiveTurn>();
  private readonly queue = new Map<string, string>();
  /** Sessions whose files are being restored: nothing else may start meanwhile. */
  private readonly restoring = new Set<string>();
  private readonly fileRestorer: FileRestorer | null;
  private readonly frameMs: number;
  private readonly newId: () => string;

  constructor(private readonly options: SessionRuntimeOptions) {
    this.frameMs = options.frameMs ?? 16;
    this.newId = options.newId ?? (() => defaultNewId(options.clock.now()));
    this.fileRestorer = options.files ? new FileRestorer(options.files, options.clock, this.newId) : null;
  }

  isBusy(sessionId: string): boolean {
    return this.active.has(sessionId);
  }

  /** Whether any session has a turn running. */
  anyBusy(): boolean {
    return this.active.size > 0;
  }

  queued(sessionId: string): string | null {
    return this.queue.get(sessionId) ?? null;
  }

  /**
   * On start: a session that was planning or executing when the app stopped becomes `interrupted`
   * (the person resumes or discards it); one that was waiting for an approval waits again, at the
   * same gate. A message that was queued is queued again.
   */
  recoverInterrupted(): string[] {
    const recovered: string[] = [];
    for (const session of this.options.store.list()) {
      if (this.active.has(session.id)) continue;
      const busy = busyStatuses.has(session.status);
      if (!busy && session.status !== 'interrupted') continue;
      const queued = leftoverQueue(this.options.store.journal(session.id));
      if (queued !== null) this.queue.set(session.id, queued);
      if (!busy) continue;
      recovered.push(session.id);
      if (session.status === 'waiting_approval') {
        try {
          this.resumeTurn(session.id);
          continue;
        } catch (error) {
          console.error('Could not reopen the waiting approval:', error instanceof Error ? error.message : String(error));
        }
      }
      this.record(session.id, [{ type: 'status_changed', status: 'interrupted' }]);
    }
    return recovered;
  }

  /**
   * Starts a turn, or queues the message when one is running (a newer message replaces the queued
   * one). Everything is checked before anything is written, so a refused send changes nothing.
   */
  send(sessionId: string, text: string): SendResult {
    const session = this.options.store.get(sessionId);
    if (!session) throw new NotFoundError('Session', sessionId);
    if (this.restoring.has(sessionId)) throw new WorkbenchError('session_busy', 'Files are being restored; wait for it to finish.');
    if (this.active.has(sessionId)) {
      const replaced = this.queue.has(sessionId);
      this.record(sessionId, [{ type: 'message_queued', text, replaced }]);
      this.queue.set(sessionId, text);
      return { turnId: null, queued: true };
    }
    return { turnId: this.start(sessionId, { text }), queued: false };
  }

  clearQueue(sessionId: string): boolean {
    if (!this.options.store.get(sessionId)) throw new NotFoundError('Session', sessionId);
    if (!this.queue.has(sessionId)) return false;
    this.record(sessionId, [{ type: 'queue_cleared', reason: 'cleared' }]);
    this.queue.delete(sessionId);
    return true;
  }

  answerApproval(approvalId: string, decision: ApprovalDecision, reason?: string): void {
    this.gates.assertApprovalPending(approvalId);
    this.gates.answerApproval(approvalId, reason === undefined ? { decision } : { decision, reason });
  }

  answerPlan(planId: string, answer: 'approve' | 'reject' | 'refine', text?: string): void {
    if (answer === 'refine' && !text?.trim()) throw new WorkbenchError('invalid_input', 'Say what should change in the plan.');
    this.gates.assertPlanPending(planId);
    this.gates.answerPlan(planId, text === undefined ? { answer } : { answer, text });
  }

  /** Stops the running turn; resolves once it has ended and its state is saved. */
  async cancel(sessionId: string): Promise<boolean> {
    const turn = this.active.get(sessionId);
    if (!turn) return false;
    turn.controller.abort(new WorkbenchError('cancelled', 'Stopped by the user.'));
    await turn.finished;
    return true;
  }

  /** Resolves when the session has no running turn and nothing queued. */
  async whenIdle(sessionId: string): Promise<void> {
    for (let turn = this.active.get(sessionId); turn; turn = this.active.get(sessionId)) await turn.finished;
  }

  async dispose(): Promise<void> {
    this.queue.clear();
    const turns = [...this.active.values()];
    for (const turn of turns) turn.controller.abort(new WorkbenchError('cancelled', 'The app is closing.'));
    await Promise.all(turns.map((turn) => turn.finished));
  }

  private start(sessionId: string, input: StartInput): string {
    const { store, providers } = this.options;
    const session = store.get(sessionId);
    if (!session) throw new NotFoundError('Session', sessionId);
    const choice: ModelChoice | null = session.model ?? providers.defaultModel();
    if (!choice) throw new WorkbenchError('no_model', 'Choose a model for this session first.');
    const provider = providers.resolve(choice);
    const endpoint = providers.describe(choice);
    const limits = this.options.limits();
    const base = input.base ?? this.baseAt(sessionId, store.journal(sessionId), 'head');
    const turnId = input.turnId ?? this.newId();
    const setup: TurnSetup = {
      sessionId,
      turnId,
      autonomy: session.autonomy,
      workspacePath: session.workspacePath,
      choice,
      endpoint,
      provider,
      system: this.options.systemPrompt ?? defaultSystemPrompt,
      history: base.history,
      checkpointHead: base.head,
      userText: input.text,
      ...(base.unsavedHistory ? { unsavedHistory: base.unsavedHistory } : {}),
      ...(input.resume ? { resume: input.resume } : {}),
      ...limits,
    };
    const prelude = input.before?.() ?? [];
    this.record(sessionId, [
      ...prelude,
      ...base.warnings,
      ...(input.text === null ? [] : [{ type: 'user_message' as const, turnId, messageId: this.newId(), text: input.text }]),
      { type: 'run_started', turnId, model: choice, providerKind: provider.kind, ...(input.resume ? { resumed: true } : {}) },
      { type: 'status_changed', status: 'planning' },
    ]);
    const controller = new AbortController();
    const turn = new Turn(
      setup,
      {
        ...this.options,
        gates: this.gates,
        frameMs: this.frameMs,
        newId: this.newId,
        record: (events, writes) => this.record(sessionId, events, writes),
      },
      controller,
    );
    const finished = turn.run().finally(() => {
      this.active.delete(sessionId);
      this.gates.forgetSession(sessionId);
      this.startQueued(sessionId);
    });
    this.active.set(sessionId, { turnId, controller, finished });
    return turnId;
  }

  /**
   * The conversation at a checkpoint, by one lookup. A checkpoint that fails its integrity check
   * gives way to its parent, with a warning event; a session journalled before checkpoints existed
   * is rebuilt from the journal. `at: 'head'` is the newest checkpoint of `entries`.
   */
  private baseAt(sessionId: string, entries: readonly JournalEntry[], at: string | null | 'head', keepOpenCalls = false): Base {
    const checkpointId = at === 'head' ? (checkpointHead(entries)?.checkpointId ?? null) : at;
    const fromJournal = (warnings: RuntimeEvent[]): Base => {
      const history = conversationFromJournal(entries);
      return { history, head: null, unsavedHistory: history, warnings };
    };
    if (checkpointId === null) return fromJournal([]);
    const tuple = this.options.checkpoints.getTuple({ threadId: sessionId, checkpointId });
    if (!tuple) {
      return fromJournal([
        {
          type: 'checkpoint_recovered',
          requestedId: checkpointId,
          usedId: null,
          message: `Checkpoint ${checkpointId} is missing, so the conversation was rebuilt from the journal.`,
        },
      ]);
    }
    const messages = parseCheckpointMessages(tuple.messages);
    const warnings: RuntimeEvent[] = tuple.recoveredFrom
      ? [
          {
            type: 'checkpoint_recovered',
            requestedId: tuple.recoveredFrom.checkpointId,
            usedId: tuple.ref.checkpointId,
            message: `Checkpoint ${tuple.recoveredFrom.checkpointId} failed its integrity check, so the conversation continues from the intact checkpoint before it (step ${tuple.seq}).`,
          },
        ]
      : [];
    const history = keepOpenCalls ? messages : answerDanglingCalls(messages);
    return { history, head: { checkpointId: tuple.ref.checkpointId, seq: tuple.seq }, warnings };
  }

  // ---- Branches ----

  /** Edits a message the person sent: its turn runs again with the new text on a new branch; the old one is kept. */
  editMessage(sessionId: string, messageId: string, text: string): { turnId: string; branchId: string } {
    this.assertIdle(sessionId);
    const entries = this.options.store.journal(sessionId);
    const index = entries.findIndex((entry) => entry.event.type === 'user_message' && entry.event.messageId === messageId);
    if (index < 0) throw new NotFoundError('Message', messageId);
    return this.forkAndRun(sessionId, this.forkBefore(sessionId, entries, index), 'edit', text);
  }

  /** Answers a turn's message again on a new branch, from the checkpoint taken when the message arrived. */
  retryTurn(sessionId: string, turnId: string): { turnId: string; branchId: string } {
    this.assertIdle(sessionId);
    const entries = this.options.store.journal(sessionId);
    const started = entries.findIndex((entry) => entry.event.type === 'run_started' && entry.event.turnId === turnId);
    if (started < 0) throw new NotFoundError('Turn', turnId);
    const question = entries.findIndex((entry) => entry.event.type === 'user_message' && entry.event.turnId === turnId);
    if (question < 0) {
      // The turn answered a message again: every answer to that message leaves from the same checkpoint.
      const checkpoint = entries.findLastIndex((entry, index) => index < started && entry.event.type === 'checkpoint_saved');
      if (checkpoint < 0) throw new WorkbenchError('invalid_state', 'This answer has no checkpoint to start again from.');
      return this.forkAndRun(sessionId, this.forkAt(sessionId, entries, checkpoint), 'retry', null);
    }
    const input = entries.findIndex(
      (entry) => entry.event.type === 'checkpoint_saved' && entry.event.turnId === turnId && entry.event.source === 'input',
    );
    if (input < 0) {
      // A turn journalled before checkpoints existed: send its message again from before it.
      const event = entries[question]?.event;
      return this.forkAndRun(
        sessionId,
        this.forkBefore(sessionId, entries, question),
        'retry',
        event?.type === 'user_message' ? event.text : '',
      );
    }
    return this.forkAndRun(sessionId, this.forkAt(sessionId, entries, input), 'retry', null);
  }

  /** Brings the conversation back to a checkpoint of the shown line, as a new branch; nothing runs. */
  restoreCheckpoint(sessionId: string, checkpointId: string): { branchId: string; recovered: boolean } {
    this.assertIdle(sessionId);
    const entries = this.options.store.journal(sessionId);
    const fork = this.forkAt(sessionId, entries, checkpointRow(entries, checkpointId));
    const branchId = this.newId();
    this.record(sessionId, [
      ...this.openBranch(sessionId, branchId, fork, 'restore'),
      ...fork.base.warnings,
      { type: 'status_changed', status: 'idle' },
    ]);
    return { branchId, recovered: fork.base.warnings.length > 0 };
  }

  /** Shows another branch. Nothing is lost: every branch stays and can be shown again. */
  switchBranch(sessionId: string, branchId: string): Branch {
    this.assertIdle(sessionId);
    const branch = this.options.store.activateBranch(sessionId, branchId, this.options.clock.now());
    const session = this.options.store.get(sessionId);
    if (session) this.options.listener.onSessionChanged({ session });
    return branch;
  }

  branchPoints(sessionId: string): BranchPoint[] {
    const { store } = this.options;
    return branchPoints(store.branches(sessionId), store.activeBranch(sessionId), store.lastSeqByBranch(sessionId));
  }

  tree(sessionId: string): SessionTreeNode | null {
    const { store } = this.options;
    const branches = store.branches(sessionId);
    const own = new Map(branches.map((branch) => [branch.id, store.journal(sessionId, { branchId: branch.id, afterSeq: branch.forkSeq })]));
    return sessionTree(branches, store.activeBranch(sessionId), own);
  }

  /** A fork just before the row at `index`: the branch leaves the line after the row before it. */
  private forkBefore(sessionId: string, entries: readonly JournalEntry[], index: number): Fork {
    const forkSeq = entries[index - 1]?.seq ?? -1;
    const head = checkpointHead(entries.slice(0, index));
    return this.fork(sessionId, entries, forkSeq, head?.checkpointId ?? null, index);
  }

  /** A fork at the `checkpoint_saved` row at `index`. */
  private forkAt(sessionId: string, entries: readonly JournalEntry[], index: number): Fork {
    const entry = entries[index];
    if (entry?.event.type !== 'checkpoint_saved') throw new WorkbenchError('internal', 'A fork at a checkpoint needs its row.');
    return this.fork(sessionId, entries, entry.seq, entry.event.checkpointId, index + 1);
  }

  private fork(sessionId: string, entries: readonly JournalEntry[], forkSeq: number, checkpointId: string | null, end: number): Fork {
    const { store } = this.options;
    const base = this.baseAt(sessionId, entries.slice(0, end), checkpointId);
    let at = forkSeq;
    if (base.head && base.head.checkpointId !== checkpointId) {
      // The checkpoint asked for was damaged: the branch leaves where the intact one was saved.
      const used = entries.find((entry) => entry.event.type === 'checkpoint_saved' && entry.event.checkpointId === base.head?.checkpointId);
      if (used) at = used.seq;
    }
    const line = branchLine(store.branches(sessionId), store.activeBranch(sessionId));
    return { parentId: ownerOf(line, at), forkSeq: at, checkpointId: base.head?.checkpointId ?? null, base };
  }

  private openBranch(sessionId: string, branchId: string, fork: Fork, reason: BranchReason): RuntimeEvent[] {
    this.options.store.createBranch(
      sessionId,
      { id: branchId, parentId: fork.parentId, forkSeq: fork.forkSeq, checkpointId: fork.checkpointId, reason },
      this.options.clock.now(),
    );
    return [{ type: 'branch_started', branchId, parentId: fork.parentId, forkSeq: fork.forkSeq, checkpointId: fork.checkpointId, reason }];
  }

  private forkAndRun(sessionId: string, fork: Fork, reason: BranchReason, text: string | null): { turnId: string; branchId: string } {
    const branchId = this.newId();
    const turnId = this.start(sessionId, { text, base: fork.base, before: () => this.openBranch(sessionId, branchId, fork, reason) });
    return { turnId, branchId };
  }

  private assertIdle(sessionId: string): void {
    if (!this.options.store.get(sessionId)) throw new NotFoundError('Session', sessionId);
    if (this.active.has(sessionId)) throw new WorkbenchError('session_busy', 'Stop the running turn first.');
    if (this.restoring.has(sessionId)) throw new WorkbenchError('session_busy', 'Files are being restored; wait for it to finish.');
  }

  // ---- Time travel over files ----

  /** What restoring a checkpoint's files would change, file by file, conflicts marked. */
  async previewFiles(sessionId: string, checkpointId: string): Promise<FilePreview> {
    const { workspacePath, snapshotId } = this.filesAt(sessionId, checkpointId);
    const files = this.options.files;
    if (!files || snapshotId === null || workspacePath === null) return { snapshotId: null, changes: [] };
    return { snapshotId, changes: await files.preview({ workspacePath, targetId: snapshotId, expectedId: files.latest(sessionId) }) };
  }

  /**
   * Brings a checkpoint back: its conversation (as a new branch), its files, or both. Files the
   * person changed since the agent last saw them are kept unless `overwriteConflicts`. A safety
   * snapshot is taken first, so the restore itself can be undone.
   */
  async restore(
    sessionId: string,
    checkpointId: string,
    mode: RestoreMode,
    overwriteConflicts = false,
  ): Promise<{ branchId: string | null; recovered: boolean; files: FilesRestored | null }> {
    this.assertIdle(sessionId);
    const entries = this.options.store.journal(sessionId);
    checkpointRow(entries, checkpointId);
    const target = mode === 'conversation' ? null : this.filesAt(sessionId, checkpointId);
    if (target && target.snapshotId === null)
      throw new WorkbenchError('invalid_state', 'No files were saved at this checkpoint: the agent had not changed any yet.');
    const restored = target?.snapshotId ? await this.restoreFiles(sessionId, target.snapshotId, overwriteConflicts) : null;
    const branch = mode === 'files' ? null : this.restoreCheckpoint(sessionId, checkpointId);
    const files = restored ? this.recordRestore(sessionId, restored, checkpointId, null) : null;
    return { branchId: branch?.branchId ?? null, recovered: branch?.recovered ?? false, files };
  }

  /** Puts the files back as they were just before a restore; what the person changed since is kept. */
  async undoRestore(sessionId: string, restoreId: string): Promise<FilesRestored> {
    this.assertIdle(sessionId);
    const event = this.options.store
      .journal(sessionId)
      .map((entry) => entry.event)
      .find((candidate) => candidate.type === 'files_restored' && candidate.restoreId === restoreId);
    if (event?.type !== 'files_restored') throw new NotFoundError('Restore', restoreId);
    const restored = await this.restoreFiles(sessionId, event.safetySnapshotId, false);
    return this.recordRestore(sessionId, restored, null, restoreId);
  }

  private recordRestore(
    sessionId: string,
    restored: Omit<FilesRestored, 'restoreId'>,
    checkpointId: string | null,
    undoOf: string | null,
  ): FilesRestored {
    const result: FilesRestored = { restoreId: this.newId(), ...restored };
    this.record(sessionId, [{ type: 'files_restored', checkpointId, undoOf, ...result }]);
    return result;
  }

  private async restoreFiles(sessionId: string, targetId: string, overwriteConflicts: boolean): Promise<Omit<FilesRestored, 'restoreId'>> {
    const session = this.options.store.get(sessionId);
    if (!this.fileRestorer || !session) throw new NotFoundError('Session', sessionId);
    this.restoring.add(sessionId);
    try {
      return await this.fileRestorer.restore(sessionId, session.workspacePath, targetId, overwriteConflicts);
    } finally {
      this.restoring.delete(sessionId);
    }
  }

  /** The snapshot that holds a checkpoint's files on the shown line. */
  private filesAt(sessionId: string, checkpointId: string): { workspacePath: string | null; snapshotId: string | null } {
    const session = this.options.store.get(sessionId);
    if (!session) throw new NotFoundError('Session', sessionId);
    return { workspacePath: session.workspacePath, snapshotId: snapshotAt(this.options.store.journal(sessionId), checkpointId) };
  }

  // ---- Crash recovery ----

  /** Goes on with the turn the app stopped in the middle of, from its last checkpoint. */
  resume(sessionId: string): { turnId: string | null } {
    this.assertIdle(sessionId);
    const session = this.options.store.get(sessionId);
    if (session?.status !== 'interrupted') throw new WorkbenchError('invalid_state', 'Only an interrupted session can be resumed.');
    return this.resumeTurn(sessionId);
  }

  private resumeTurn(sessionId: string): { turnId: string | null } {
    const entries = this.options.store.journal(sessionId);
    const turnId = openTurn(entries);
    if (turnId === null) {
      // Nothing was running; a queued message was waiting to start.
      this.record(sessionId, [{ type: 'status_changed', status: 'idle' }]);
      this.startQueued(sessionId);
      return { turnId: null };
    }
    const base = this.baseAt(sessionId, entries, 'head', true);
    const resume = resumePoint(base.history, entries, turnId);
    // An answer to a gate that opens again may come before the turn is back at it.
    for (const prior of resume.prior.values())
      if (prior.gate && !prior.gate.answer) this.gates.expectApproval(prior.gate.approvalId, sessionId);
    try {
      return { turnId: this.start(sessionId, { text: null, turnId, base, resume }) };
    } catch (error) {
      this.gates.forgetSession(sessionId);
      throw error;
    }
  }

  /** Ends the turn the app stopped in the middle of without going on; a queued message is handed back. */
  discard(sessionId: string): { queued: string | null } {
    this.assertIdle(sessionId);
    const session = this.options.store.get(sessionId);
    if (session?.status !== 'interrupted') throw new WorkbenchError('invalid_state', 'Only an interrupted session can be discarded.');
    const entries = this.options.store.journal(sessionId);
    const turnId = openTurn(entries);
    const queued = this.queue.get(sessionId) ?? null;
    this.queue.delete(sessionId);
    this.record(sessionId, [
      ...(turnId === null ? [] : [{ type: 'run_finished' as const, turnId, status: 'cancelled' as const }]),
      ...(queued === null ? [] : [{ type: 'queue_cleared' as const, reason: 'cleared' as const }]),
      { type: 'status_changed', status: 'cancelled' },
    ]);
    return { queued };
  }

  /** A queued message runs as soon as the turn before it ends. */
  private startQueued(sessionId: string): void {
    const text = this.queue.get(sessionId);
    if (text === undefined) return;
    this.queue.delete(sessionId);
    try {
      this.record(sessionId, [{ type: 'queue_cleared', reason: 'started' }]);
      this.start(sessionId, { text });
    } catch (error) {
      console.error('Could not start the queued message:', error instanceof Error ? error.message : String(error));
    }
  }

  /** Journals events (with any other writes, in the same transaction), then announces them. */
  private record(sessionId: string, events: RuntimeEvent[], writes?: () => void): void {
    const { store, listener, clock } = this.options;
    const entries = writes
      ? store.transaction(() => {
          const appended = store.append(sessionId, events, clock.now());
          writes();
          return appended;
        })
      : store.append(sessionId, events, clock.now());
    listener.onEntries(sessionId, entries);
    if (events.some((event) => event.type === 'status_changed')) {
      const session = store.get(sessionId);
      if (session) listener.onSessionChanged({ session });
    }
  }
}
