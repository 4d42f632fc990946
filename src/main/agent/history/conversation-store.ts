/*
 * The conversation at a checkpoint: the latest of each session kept in memory, and read ahead when a session is
 * opened.
 */
import { BoundedMap } from '../../../shared/bounded-map';
import type { RuntimeEvent } from '../../../shared/events';
import type { CheckpointStore } from '../ports/checkpoints';
import { answerDanglingCalls, conversationFromJournal, parseCheckpointMessages } from './conversation';
import type { ConversationEntry } from '../context/context-view';
import type { SessionStore } from '../ports/stores';

/** The conversation a turn starts from, and the checkpoint its own checkpoints hang off. */
export interface ConversationBase {
  readonly history: readonly ConversationEntry[];
  readonly head: { readonly checkpointId: string; readonly seq: number } | null;
  /** Messages not yet in any checkpoint: a session journalled before checkpoints existed. */
  readonly unsavedHistory?: readonly ConversationEntry[];
  /** Said in the journal before the turn: a checkpoint was damaged or missing. */
  readonly warnings: readonly RuntimeEvent[];
}

/** How many sessions' latest conversations are kept in memory. */
const remembered = 8;

/**
 * The conversation at a checkpoint, by one lookup of its chain. A checkpoint that fails its
 * integrity check gives way to its parent, with a warning; a session journalled before checkpoints
 * existed is rebuilt from its journal. The conversation a turn ended with is kept in memory, so
 * the next turn of that session starts without reading it back.
 */
export class ConversationStore {
  private readonly latest = new BoundedMap<
    string,
    { checkpointId: string; seq: number; messages: readonly ConversationEntry[]; closed: readonly ConversationEntry[] }
  >({ max: remembered });

  constructor(
    private readonly checkpoints: CheckpointStore,
    private readonly store: SessionStore,
  ) {}

  /**
   * The conversation at `checkpointId` of a session's shown line. With no checkpoint, the line's
   * journal up to `upToSeq` is the conversation. `keepOpenCalls`: calls without a result stay
   * open (a turn resumes them); otherwise each gets a result saying it did not run.
   */
  at(sessionId: string, checkpointId: string | null, options: { upToSeq?: number; keepOpenCalls?: boolean } = {}): ConversationBase {
    const close = (messages: readonly ConversationEntry[]): readonly ConversationEntry[] =>
      options.keepOpenCalls ? messages : answerDanglingCalls(messages);
    const fromJournal = (warnings: RuntimeEvent[]): ConversationBase => {
      const entries = this.store.journal(sessionId, options.upToSeq === undefined ? {} : { upToSeq: options.upToSeq });
      const history = conversationFromJournal(entries);
      return { history, head: null, unsavedHistory: history, warnings };
    };
    if (checkpointId === null) return fromJournal([]);
    const kept = this.latest.get(sessionId);
    if (kept?.checkpointId === checkpointId)
      return { history: options.keepOpenCalls ? kept.messages : kept.closed, head: { checkpointId, seq: kept.seq }, warnings: [] };
    const tuple = this.checkpoints.getTuple({ threadId: sessionId, checkpointId });
    if (!tuple) {
      const message = `Checkpoint ${checkpointId} is missing, so the conversation was rebuilt from the journal.`;
      return fromJournal([{ type: 'checkpoint_recovered', requestedId: checkpointId, usedId: null, message }]);
    }
    const messages = parseCheckpointMessages(tuple.messages);
    const used = tuple.ref.checkpointId;
    const warnings: RuntimeEvent[] = tuple.recoveredFrom
      ? [
          {
            type: 'checkpoint_recovered',
            requestedId: tuple.recoveredFrom.checkpointId,
            usedId: used,
            message: `Checkpoint ${tuple.recoveredFrom.checkpointId} failed its integrity check, so the conversation continues from the intact checkpoint before it (step ${tuple.seq}).`,
          },
        ]
      : [];
    return { history: close(messages), head: { checkpointId: used, seq: tuple.seq }, warnings };
  }

  /**
   * Reads a session's conversation at its head ahead of time (when the person opens it), so the
   * first message they send starts without reading it. A damaged or missing checkpoint is left for
   * the turn to find and report.
   */
  prepare(sessionId: string, checkpointId: string | null): void {
    if (checkpointId === null || this.latest.get(sessionId)?.checkpointId === checkpointId) return;
    const tuple = this.checkpoints.getTuple({ threadId: sessionId, checkpointId });
    if (!tuple || tuple.recoveredFrom) return;
    this.remember(sessionId, checkpointId, tuple.seq, parseCheckpointMessages(tuple.messages));
  }

  /** A turn ended with this conversation saved at this checkpoint. */
  remember(sessionId: string, checkpointId: string, seq: number, messages: readonly ConversationEntry[]): void {
    // Set again, a session becomes the newest: the one whose turn ended longest ago is forgotten first. Its calls are
    // closed here (when a turn has ended, or the session is read ahead), not when the next turn starts.
    this.latest.set(sessionId, { checkpointId, seq, messages, closed: answerDanglingCalls(messages) });
  }

  forget(sessionId: string): void {
    this.latest.delete(sessionId);
  }
}
