/*
 * Batches a session's journal entries and tool-call drafts into one `session:events` message per frame, so a fast
 * stream never costs one message per token.
 */

import type { JournalEntry, ToolCallDraftEvent } from '../../shared/events';
import type { EventSender } from './router';

interface Pending {
  readonly entries: JournalEntry[];
  readonly drafts: ToolCallDraftEvent[];
}

/**
 * Gathers a session's journal entries, and the drafts of the tool calls its model is writing, and
 * sends them as one `session:events` message per frame, so a fast stream costs the renderer one
 * message per frame, never one per token.
 */
export class EventBatcher {
  private readonly pending = new Map<string, Pending>();
  private readonly timers = new Map<string, ReturnType<typeof setTimeout>>();
  messagesSent = 0;

  constructor(
    private readonly sender: EventSender,
    private readonly frameMs = 16,
  ) {}

  push(sessionId: string, entries: readonly JournalEntry[]): void {
    if (entries.length === 0) return;
    this.queue(sessionId).entries.push(...entries);
  }

  /** Drafts go out with the frame's entries, after them: the renderer folds the entries first. */
  pushDrafts(sessionId: string, drafts: readonly ToolCallDraftEvent[]): void {
    if (drafts.length === 0) return;
    this.queue(sessionId).drafts.push(...drafts);
  }

  flush(sessionId: string): void {
    const timer = this.timers.get(sessionId);
    if (timer !== undefined) clearTimeout(timer);
    this.timers.delete(sessionId);
    const queued = this.pending.get(sessionId);
    this.pending.delete(sessionId);
    if (!queued || (queued.entries.length === 0 && queued.drafts.length === 0)) return;
    this.messagesSent += 1;
    const { entries, drafts } = queued;
    this.sender.send('session:events', drafts.length === 0 ? { sessionId, entries } : { sessionId, entries, drafts });
  }

  flushAll(): void {
    for (const sessionId of [...this.pending.keys()]) this.flush(sessionId);
  }

  dispose(): void {
    this.flushAll();
  }

  private queue(sessionId: string): Pending {
    let queued = this.pending.get(sessionId);
    if (!queued) {
      queued = { entries: [], drafts: [] };
      this.pending.set(sessionId, queued);
    }
    if (!this.timers.has(sessionId))
      this.timers.set(
        sessionId,
        setTimeout(() => this.flush(sessionId), this.frameMs),
      );
    return queued;
  }
}
