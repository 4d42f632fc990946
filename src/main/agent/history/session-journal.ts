/*
 * The session journal: the one way events are written, each line's head folded with them, and then announced.
 */
import type { JournalEntry, RuntimeEvent, ToolCallDraftEvent } from '../../../shared/events';
import type { Clock } from '../ports/clock';
import type { RuntimeListener } from '../ports/ports';
import { emptyHead, type SessionHead } from '../ports/session-head';
import type { NewBranch, SessionPatch, SessionStore } from '../ports/stores';
import type { Session } from '../../../shared/domain';
import { advanceHead, replayHead } from './head-fold';

/**
 * The one way the runtime writes a session's journal: events are appended (with any other writes
 * of the same step, in one transaction), and only then announced. Nothing is announced that was
 * not saved, but for the drafts of tool calls the model is still writing (`announceDrafts`). Where
 * each line stands is folded here with every append and handed to the store, which keeps it.
 */
export class SessionJournal {
  constructor(
    private readonly store: SessionStore,
    private readonly listener: RuntimeListener,
    private readonly clock: Clock,
  ) {}

  /**
   * Appends `events` to the session's shown branch, or to `branch`, which is opened first in the
   * same transaction. `alongside` runs in that transaction too (accounting rows, a trust grant, a
   * change to the session's row).
   */
  append(sessionId: string, events: readonly RuntimeEvent[], options: { alongside?: () => void; branch?: NewBranch } = {}): JournalEntry[] {
    const { store } = this;
    const { alongside, branch } = options;
    const entries = alongside
      ? store.transaction(() => {
          const appended = this.write(sessionId, events, branch);
          alongside();
          return appended;
        })
      : this.write(sessionId, events, branch);
    this.announce(sessionId, entries, branch !== undefined);
    return entries;
  }

  /**
   * Changes the session's row and journals `events` with the change, in one transaction (an autonomy changed is
   * journalled so the audit can say which level decided each call); then announces both.
   */
  update(sessionId: string, patch: SessionPatch, events: readonly RuntimeEvent[] = []): Session {
    const { store, clock } = this;
    const [session, entries] = store.transaction(
      () => [store.update(sessionId, patch, clock.now()), this.write(sessionId, events, undefined)] as const,
    );
    this.announce(sessionId, entries, false);
    this.listener.onSessionChanged({ session });
    return session;
  }

  /**
   * Where the session's shown line stands. The store keeps it with every append; one it does not have (a database
   * from before heads, a branch shown again whose head was not kept, a fold of another version) is replayed from the
   * line's journal once, and kept.
   */
  head(sessionId: string): SessionHead {
    const kept = this.store.head(sessionId);
    if (kept) return kept;
    const head = replayHead(this.store.journal(sessionId));
    this.store.putHead(sessionId, head);
    return head;
  }

  /** Writes events with where the line stands after them, folded from where it stood. */
  private write(sessionId: string, events: readonly RuntimeEvent[], branch: NewBranch | undefined): JournalEntry[] {
    const { store, clock } = this;
    if (events.length === 0) return [];
    // A branch's events begin with its branch_started, which the fold starts its line from.
    let head = branch ? emptyHead : this.head(sessionId);
    let seq = store.nextSeq(sessionId);
    for (const event of events) head = advanceHead(head, seq++, event);
    return store.append(sessionId, events, clock.now(), branch ? { head, branch } : { head });
  }

  /** Announces what was written, and the session's row when its status or shown branch changed. */
  private announce(sessionId: string, entries: readonly JournalEntry[], branched: boolean): void {
    if (entries.length === 0) return;
    this.listener.onEntries(sessionId, entries);
    if (branched || entries.some((entry) => entry.event.type === 'status_changed')) this.announceSession(sessionId);
  }

  /**
   * Shows the tool calls the model is writing without saving them: the call is journalled whole once
   * the response is complete, and a draft cut short by an error or Stop was never sent.
   */
  announceDrafts(sessionId: string, drafts: readonly ToolCallDraftEvent[]): void {
    if (drafts.length > 0) this.listener.onDrafts?.(sessionId, drafts);
  }

  /** Tells the UI the session's row changed (its status, title or shown branch). */
  announceSession(sessionId: string): void {
    const session = this.store.get(sessionId);
    if (session) this.listener.onSessionChanged({ session });
  }
}
