import type { JournalEntry, RuntimeEvent, ToolCallDraftEvent } from '../../../shared/events';
import type { Clock } from '../ports/clock';
import type { RuntimeListener } from '../ports/ports';
import type { NewBranch, SessionStore } from '../ports/stores';

/**
 * The one way the runtime writes a session's journal: events are appended (with any other writes
 * of the same step, in one transaction), and only then announced. Nothing is announced that was
 * not saved, but for the drafts of tool calls the model is still writing (`announceDrafts`).
 */
export class SessionJournal {
  constructor(
    private readonly store: SessionStore,
    private readonly listener: RuntimeListener,
    private readonly clock: Clock,
  ) {}

  /**
   * Appends `events` to the session's shown branch, or to `branch`, which is opened first in the
   * same transaction. `alongside` runs in that transaction too (accounting rows, a trust grant).
   */
  append(sessionId: string, events: readonly RuntimeEvent[], options: { alongside?: () => void; branch?: NewBranch } = {}): JournalEntry[] {
    const { store, listener, clock } = this;
    const { alongside, branch } = options;
    const write = (): JournalEntry[] => store.append(sessionId, events, clock.now(), branch ? { branch } : {});
    const entries = alongside
      ? store.transaction(() => {
          const appended = write();
          alongside();
          return appended;
        })
      : write();
    listener.onEntries(sessionId, entries);
    if (branch || events.some((event) => event.type === 'status_changed')) this.announceSession(sessionId);
    return entries;
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
