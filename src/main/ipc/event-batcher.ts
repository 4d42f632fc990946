import type { JournalEntry } from '../../shared/events';
import type { EventSender } from './router';

/**
 * Gathers a session's journal entries and sends them as one `session:events` message per frame,
 * so a fast stream costs the renderer one message per frame, never one per token.
 */
export class EventBatcher {
  private readonly pending = new Map<string, JournalEntry[]>();
  private readonly timers = new Map<string, ReturnType<typeof setTimeout>>();
  messagesSent = 0;

  constructor(
    private readonly sender: EventSender,
    private readonly frameMs = 16,
  ) {}

  push(sessionId: string, entries: readonly JournalEntry[]): void {
    if (entries.length === 0) return;
    const queue = this.pending.get(sessionId);
    if (queue) queue.push(...entries);
    else this.pending.set(sessionId, [...entries]);
    if (!this.timers.has(sessionId))
      this.timers.set(
        sessionId,
        setTimeout(() => this.flush(sessionId), this.frameMs),
      );
  }

  flush(sessionId: string): void {
    const timer = this.timers.get(sessionId);
    if (timer !== undefined) clearTimeout(timer);
    this.timers.delete(sessionId);
    const entries = this.pending.get(sessionId);
    this.pending.delete(sessionId);
    if (!entries || entries.length === 0) return;
    this.messagesSent += 1;
    this.sender.send('session:events', { sessionId, entries });
  }

  flushAll(): void {
    for (const sessionId of [...this.pending.keys()]) this.flush(sessionId);
  }

  dispose(): void {
    this.flushAll();
  }
}
