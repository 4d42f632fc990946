/*
 * Versions of a conversation: a message edited or an answer retried as a new branch, a conversation restored,
 * branches switched, the tree.
 */
import type { Attachment } from '../../../shared/attachments';
import type { Branch, BranchReason } from '../../../shared/domain';
import type { BranchPoint, SessionTreeNode } from '../../../shared/branches';
import { BugError, NotFoundError, WorkbenchError } from '../../../shared/errors';
import type { JournalEntry, RuntimeEvent } from '../../../shared/events';
import { branchLine, branchPoints, ownerOf, sessionTree } from '../history/branching';
import type { Clock } from '../ports/clock';
import type { ConversationBase, ConversationStore } from '../history/conversation-store';
import type { SessionJournal } from '../history/session-journal';
import type { NewBranch, SessionStore } from '../ports/stores';
import { branchStarted, type TurnScheduler } from './turn-scheduler';

/** Where a new branch leaves its parent's line. */
interface Fork {
  readonly parentId: string;
  readonly forkSeq: number;
  readonly checkpointId: string | null;
  readonly base: ConversationBase;
}

export interface VersionsOptions {
  readonly store: SessionStore;
  readonly turns: TurnScheduler;
  readonly conversations: ConversationStore;
  readonly journal: SessionJournal;
  readonly clock: Clock;
  readonly newId: () => string;
}

/**
 * Versions of a conversation: editing a message or retrying an answer runs it again on a new
 * branch, restoring a checkpoint's conversation opens a branch there, and any branch can be shown
 * again. Nothing is lost: every branch stays. Each of these finds its rows by id and reads the
 * checkpoint chain, never the whole journal.
 */
export class Versions {
  constructor(private readonly options: VersionsOptions) {}

  /**
   * Edits a message the person sent: its turn runs again with the new text on a new branch; the old one is kept.
   * `prelude`: rows that open the new branch, before the message (given the branch's id).
   */
  edit(
    sessionId: string,
    messageId: string,
    text: string,
    prelude?: (branchId: string) => RuntimeEvent[],
  ): { turnId: string; branchId: string } {
    const { store, turns } = this.options;
    turns.assertIdle(sessionId);
    const message = store.findById(sessionId, 'user_message', messageId);
    if (!message) throw new NotFoundError('Message', messageId);
    // The edit changes the words; the files attached to the message go with it, as they were read then.
    const attachments = message.event.type === 'user_message' ? (message.event.attachments ?? []) : [];
    return this.forkAndRun(sessionId, this.forkBefore(sessionId, message), 'edit', text, attachments, prelude);
  }

  /** Answers a turn's message again on a new branch, from the checkpoint taken when the message arrived. */
  retry(sessionId: string, turnId: string): { turnId: string; branchId: string } {
    const { store, turns } = this.options;
    turns.assertIdle(sessionId);
    const started = store.findById(sessionId, 'run_started', turnId);
    if (!started) throw new NotFoundError('Turn', turnId);
    const question = store.nearest(sessionId, 'before', started.seq, ['user_message']);
    if (question?.event.type !== 'user_message' || question.event.turnId !== turnId) {
      // The turn answered a message again: every answer to that message leaves from the same checkpoint.
      const checkpoint = store.nearest(sessionId, 'before', started.seq, ['checkpoint_saved']);
      if (!checkpoint) throw new WorkbenchError('invalid_state', 'This answer has no checkpoint to start again from.');
      return this.forkAndRun(sessionId, this.forkAt(sessionId, checkpoint), 'retry', null);
    }
    const input = store.nearest(sessionId, 'after', started.seq, ['checkpoint_saved']);
    if (input?.event.type !== 'checkpoint_saved' || input.event.turnId !== turnId || input.event.source !== 'input') {
      // A turn journalled before checkpoints existed: send its message again from before it.
      return this.forkAndRun(sessionId, this.forkBefore(sessionId, question), 'retry', question.event.text, question.event.attachments);
    }
    return this.forkAndRun(sessionId, this.forkAt(sessionId, input), 'retry', null);
  }

  /** Brings the conversation back to a checkpoint of the shown line, as a new branch; nothing runs. */
  restoreConversation(sessionId: string, checkpointId: string): { branchId: string; recovered: boolean } {
    const { store, turns, journal } = this.options;
    turns.assertIdle(sessionId);
    const row = store.findById(sessionId, 'checkpoint_saved', checkpointId);
    if (!row) throw new NotFoundError('Checkpoint', checkpointId);
    const fork = this.forkAt(sessionId, row);
    const branch = this.newBranch(fork, 'restore');
    journal.append(sessionId, [branchStarted(branch), ...fork.base.warnings, { type: 'status_changed', status: 'idle' }], { branch });
    return { branchId: branch.id, recovered: fork.base.warnings.length > 0 };
  }

  /** Shows another branch. */
  switchTo(sessionId: string, branchId: string): Branch {
    const { store, turns, clock, journal } = this.options;
    turns.assertIdle(sessionId);
    const branch = store.activateBranch(sessionId, branchId, clock.now());
    journal.announceSession(sessionId);
    return branch;
  }

  /** The places on the shown line where other versions exist. */
  points(sessionId: string): BranchPoint[] {
    const { store } = this.options;
    return branchPoints(this.kept(sessionId), store.activeBranch(sessionId), store.lastSeqByBranch(sessionId));
  }

  tree(sessionId: string): SessionTreeNode | null {
    const { store } = this.options;
    return sessionTree(this.kept(sessionId), store.activeBranch(sessionId), store.branchSummaries(sessionId));
  }

  /**
   * The versions worth showing: all but a restored conversation left without a message of its own (its restore undone,
   * or another version shown since). It holds nothing its parent does not, so showing it would offer an empty version.
   */
  private kept(sessionId: string): Branch[] {
    const { store } = this.options;
    const branches = store.branches(sessionId);
    const active = store.activeBranch(sessionId);
    const idle = branches.filter(
      (branch) => branch.reason === 'restore' && branch.id !== active && !branches.some((child) => child.parentId === branch.id),
    );
    if (idle.length === 0) return branches;
    const summaries = store.branchSummaries(sessionId);
    const empty = new Set(idle.filter((branch) => (summaries.get(branch.id)?.messages ?? 0) === 0).map((branch) => branch.id));
    return branches.filter((branch) => !empty.has(branch.id));
  }

  /** A fork just before a row: the branch leaves the line after the row before it, from the checkpoint the line stood at then. */
  private forkBefore(sessionId: string, row: JournalEntry): Fork {
    const { store } = this.options;
    const forkSeq = store.nearest(sessionId, 'before', row.seq)?.seq ?? -1;
    const head = store.nearest(sessionId, 'before', row.seq, ['checkpoint_saved', 'branch_started'])?.event;
    const checkpointId = head?.type === 'checkpoint_saved' || head?.type === 'branch_started' ? head.checkpointId : null;
    return this.fork(sessionId, forkSeq, checkpointId);
  }

  /** A fork at a `checkpoint_saved` row. */
  private forkAt(sessionId: string, row: JournalEntry): Fork {
    if (row.event.type !== 'checkpoint_saved') throw new BugError('A fork at a checkpoint needs its row.');
    return this.fork(sessionId, row.seq, row.event.checkpointId);
  }

  private fork(sessionId: string, forkSeq: number, checkpointId: string | null): Fork {
    const { store, conversations } = this.options;
    const base = conversations.at(sessionId, checkpointId, { upToSeq: forkSeq });
    let at = forkSeq;
    if (base.head && base.head.checkpointId !== checkpointId) {
      // The checkpoint asked for was damaged: the branch leaves where the intact one was saved.
      const used = store.findById(sessionId, 'checkpoint_saved', base.head.checkpointId);
      if (used) at = used.seq;
    }
    const line = branchLine(store.branches(sessionId), store.activeBranch(sessionId));
    return { parentId: ownerOf(line, at), forkSeq: at, checkpointId: base.head?.checkpointId ?? null, base };
  }

  private newBranch(fork: Fork, reason: BranchReason): NewBranch {
    return { id: this.options.newId(), parentId: fork.parentId, forkSeq: fork.forkSeq, checkpointId: fork.checkpointId, reason };
  }

  private forkAndRun(
    sessionId: string,
    fork: Fork,
    reason: BranchReason,
    text: string | null,
    attachments: readonly Attachment[] = [],
    prelude?: (branchId: string) => RuntimeEvent[],
  ): { turnId: string; branchId: string } {
    const branch = this.newBranch(fork, reason);
    const turnId = this.options.turns.start(sessionId, {
      text,
      base: fork.base,
      branch,
      ...(attachments.length > 0 ? { attachments } : {}),
      ...(prelude ? { prelude: prelude(branch.id) } : {}),
    });
    return { turnId, branchId: branch.id };
  }
}
