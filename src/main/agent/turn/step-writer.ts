/*
 * The turn's writer: the journal buffer and its frames, the conversation, checkpoints and file snapshots.
 */
import type { SessionStatus } from '../../../shared/domain';
import { toErrorInfo, type ErrorInfo } from '../../../shared/errors';
import type { GivenCodeMap, RuntimeEvent, ToolCallDraftEvent, ToolCallStatus } from '../../../shared/events';
import { maxChangedListed } from '../../../shared/changes';
import { DeltaCoalescer, mergeDrafts, mergeStreamed, type StreamedEvent } from './delta-coalescer';
import { userMessage } from '../context/attachment-content';
import type { ConversationEntry } from '../context/context-view';
import type { ToolCallRequest } from '../ports/model-provider';
import type { FileSnapshotInfo } from '../ports/ports';
import type { StepWriter, TurnServices, TurnSetup } from './step-context';

type CheckpointSource = 'input' | 'model' | 'tool' | 'approval' | 'compaction';

/**
 * The step writer of one turn (see `StepWriter`), over the session's journal and checkpoints.
 *
 * Events wait in a buffer that `flush` writes in one transaction; it runs before every side
 * effect (a tool, a gate, a grant) and at the end of the turn, so each event is still saved before
 * what it announces happens, at a fraction of the commits. A model request announces nothing and
 * changes nothing: what waits when it is sent is written within the frame, while the model reads.
 */
export class TurnWriter implements StepWriter {
  private readonly coalescer = new DeltaCoalescer(mergeStreamed);
  /** Pieces of the tool calls the model is writing: sent with the frame, never journalled. */
  private readonly drafts = new DeltaCoalescer(mergeDrafts);
  private pending: RuntimeEvent[] = [];
  private alongside: Array<() => void> = [];
  private timer: ReturnType<typeof setTimeout> | null = null;
  private readonly conversation: ConversationEntry[];
  /** Messages added since the last checkpoint. */
  private unsaved: ConversationEntry[];
  private head: { checkpointId: string; seq: number } | null;
  private currentStatus: SessionStatus = 'planning';
  /** Whether the person's message has been given its memories: once a turn. */
  private recalled = false;
  /** The paths the turn's calls changed (what changed before the turn is someone else's). */
  private readonly changedInTurn = new Set<string>();
  /** Whether this turn has journaled a file snapshot yet: its first one marks the files as the turn found them. */
  private filesMarked = false;
  /** Tool calls that failed (not those denied or stopped). */
  failures = 0;
  /** A journal write failed under a stream: the turn stops, and ends failed with this. */
  failure: ErrorInfo | null = null;

  constructor(
    private readonly setup: TurnSetup,
    private readonly services: TurnServices,
    private readonly controller: AbortController,
    /** The model calls the turn has made, as its loop holds them: each checkpoint records them. */
    private readonly iterations: () => number,
  ) {
    const question: ConversationEntry[] = setup.userText === null ? [] : [userMessage(setup.userText, setup.userAttachments)];
    this.conversation = [...setup.history, ...question];
    this.unsaved = [...(setup.unsavedHistory ?? []), ...question];
    this.head = setup.checkpointHead;
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** The conversation, compactions included. */
  get messages(): readonly ConversationEntry[] {
    return this.conversation;
  }

  /** Whether messages wait for a checkpoint (the person's question at the start of a turn). */
  get hasUnsaved(): boolean {
    return this.unsaved.length > 0;
  }

  /** Adds events to the next flush, after any streamed pieces still waiting for their frame. */
  journal(events: readonly RuntimeEvent[]): void {
    this.takeStreamed();
    this.pending.push(...events);
  }

  /** A write (accounting, a grant) that lands in the same transaction as the next flush. */
  stage(write: () => void): void {
    this.alongside.push(write);
  }

  /** Journals and announces everything so far, in one transaction. */
  flush(): void {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    this.takeStreamed();
    const drafts = this.drafts.take();
    if (this.pending.length > 0 || this.alongside.length > 0) {
      const events = this.pending;
      const writes = this.alongside;
      this.pending = [];
      this.alongside = [];
      this.services.journal.append(
        this.setup.sessionId,
        events,
        writes.length === 0 ? {} : { alongside: () => writes.forEach((write) => write()) },
      );
    }
    // After the frame's entries, so the response a draft belongs to has been announced before it.
    this.services.journal.announceDrafts(this.setup.sessionId, drafts);
  }

  /** Streams a piece (text, reasoning, tool output): it is journalled and sent with the others of its frame. */
  stream(piece: StreamedEvent): void {
    this.coalescer.add(piece);
    this.flushWithinFrame();
  }

  /** Shows a piece of a tool call the model is writing, with the others of its frame; it is not journalled. */
  draft(piece: ToolCallDraftEvent): void {
    this.drafts.add(piece);
    this.flushWithinFrame();
  }

  /** The response has ended: the drafts not yet shown are superseded by its calls, or were never sent. */
  dropDrafts(): void {
    this.drafts.take();
  }

  /** Writes what is buffered within a frame, with whatever else comes meanwhile. */
  flushWithinFrame(): void {
    this.timer ??= setTimeout(() => {
      try {
        this.flush();
      } catch (error) {
        // A journal write failed: stop the turn rather than show what was not saved.
        this.failure = toErrorInfo(error);
        this.controller.abort(this.failure);
      }
    }, this.services.frameMs);
  }

  setStatus(status: SessionStatus): void {
    if (this.currentStatus === status) return;
    this.currentStatus = status;
    this.journal([{ type: 'status_changed', status }]);
  }

  /** The paths this turn's calls changed. */
  get changedPaths(): readonly string[] {
    return [...this.changedInTurn];
  }

  /** Adds a message to the conversation; the next checkpoint saves it. */
  addMessage(message: ConversationEntry): void {
    this.conversation.push(message);
    this.unsaved.push(message);
  }

  /**
   * Gives the person's new message the memories recalled for it, once a turn: they follow it in the conversation (the
   * request joins the two into one message of the person's), and the journal says which they were.
   */
  recallMemories(block: string, memories: ReadonlyArray<{ readonly id: string; readonly text: string }>, codeMap?: GivenCodeMap): void {
    if (this.recalled || this.conversation.at(-1)?.role !== 'user') return;
    this.recalled = true;
    this.addMessage({ role: 'user', content: block, recalled: true });
    this.journal([
      {
        type: 'memories_recalled',
        turnId: this.setup.turnId,
        text: block,
        memories: memories.map(({ id, text }) => ({ id, text })),
        ...(codeMap ? { codeMap } : {}),
      },
    ]);
  }

  /** Adds a call's result to the conversation, counting failures. */
  addToolResult(request: ToolCallRequest, content: string, status: ToolCallStatus): void {
    if (status === 'failed') this.failures += 1;
    this.addMessage({ role: 'tool', toolCallId: request.id, content, isError: status !== 'succeeded' });
  }

  /**
   * Saves a checkpoint of the step just taken: the messages it added and where the turn stands.
   * Its event and its row land in the same transaction as the step's other events.
   */
  checkpoint(source: CheckpointSource): void {
    const { setup, services } = this;
    const checkpointId = services.newId();
    const parent = this.head;
    const seq = parent ? parent.seq + 1 : 0;
    const appended = this.unsaved;
    this.unsaved = [];
    this.head = { checkpointId, seq };
    // The commit checked out, read from the repository's files (no process): a restore's preview says when it moved since.
    const head = setup.workspacePath ? (services.git?.headOf(setup.workspacePath) ?? null) : null;
    this.journal([
      {
        type: 'checkpoint_saved',
        turnId: setup.turnId,
        checkpointId,
        parentId: parent?.checkpointId ?? null,
        seq,
        source,
        ...(head === null ? {} : { head }),
      },
    ]);
    const state = { status: this.currentStatus, turnId: setup.turnId, iteration: this.iterations() };
    const parentRef = parent ? { threadId: setup.sessionId, checkpointId: parent.checkpointId } : null;
    this.stage(() => services.checkpoints.put(parentRef, setup.sessionId, { appended, state }, { source, step: seq }, checkpointId));
  }

  /**
   * Saves the workspace's files as they are now, as the state at the newest checkpoint. Runs
   * before and after every call that may change files (edit tools, commands, MCP tools alike); a
   * failure to save is reported and does not stop the turn. Returns the paths that changed.
   */
  async captureFiles(): Promise<readonly string[]> {
    const snapshot = await this.snapshotFiles();
    snapshot.announce();
    return snapshot.changed;
  }

  /**
   * Saves the workspace's files as they are now and says which paths changed, but journals the save only on
   * `announce`: after a call's result and its checkpoint, so the change is the step's that made it.
   */
  async snapshotFiles(): Promise<{ readonly changed: readonly string[]; announce(): void }> {
    const { files, clock } = this.services;
    const { workspacePath, sessionId, turnId } = this.setup;
    const nothing = { changed: [], announce: () => undefined };
    if (!files || !workspacePath) return nothing;
    this.flush();
    let info: FileSnapshotInfo;
    try {
      info = await files.capture({ sessionId, workspacePath, id: this.services.newId(), at: clock.now(), kind: 'step' });
    } catch (error) {
      console.error('Could not save the workspace files:', toErrorInfo(error).message);
      return nothing;
    }
    let announced = false;
    const announce = (): void => {
      if (announced) return;
      announced = true;
      // A reused snapshot is journaled only as the turn's first: where its changes are compared from.
      if (info.reused && this.filesMarked) return;
      const turnStart = this.filesMarked ? {} : { turnStart: true as const };
      this.filesMarked = true;
      const changed = info.reused ? [] : info.changed.slice(0, maxChangedListed);
      const checkpointId = this.head?.checkpointId ?? null;
      const { snapshotId, files: count, skipped } = info;
      try {
        this.journal([{ type: 'files_snapshotted', turnId, snapshotId, checkpointId, files: count, changed, skipped, ...turnStart }]);
        this.flush();
      } catch (error) {
        console.error('Could not save the workspace files:', toErrorInfo(error).message);
        return;
      }
      if (turnStart.turnStart !== true && !info.reused) for (const path of info.changed) this.changedInTurn.add(path);
    };
    // The paths this save found changed since the one before (the turn's first save compares with what came before it).
    return { changed: info.reused || !this.filesMarked ? [] : info.changed, announce };
  }

  /** The conversation as saved at the newest checkpoint, when every message is saved. */
  saved(): { checkpointId: string; seq: number; messages: readonly ConversationEntry[] } | null {
    if (this.head === null || this.unsaved.length > 0 || this.pending.length > 0) return null;
    return { ...this.head, messages: this.conversation };
  }

  /** Stops the frame timer: nothing streams after the turn has ended. */
  /** Forgets what waits to be written (after a write of it failed), so what comes next can still be. */
  dropPending(): void {
    this.coalescer.take();
    this.pending = [];
    this.alongside = [];
  }

  close(): void {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
  }

  /** Moves the streamed pieces into the buffer, ahead of what comes next; a flush asked for stays asked for. */
  private takeStreamed(): void {
    if (!this.coalescer.isEmpty) this.pending.push(...this.coalescer.take());
  }
}
