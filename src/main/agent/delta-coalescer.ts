import type { RuntimeEvent } from '../../shared/events';

type DeltaEvent = Extract<RuntimeEvent, { type: 'text_delta' | 'reasoning_delta' }>;

/**
 * Collects streamed deltas and hands them out merged: consecutive deltas of the same kind and
 * message become one event, so a flush per frame writes one journal row and sends one message
 * however many tokens arrived.
 */
export class DeltaCoalescer {
  private pending: DeltaEvent[] = [];

  get isEmpty(): boolean {
    return this.pending.length === 0;
  }

  add(event: DeltaEvent): void {
    const last = this.pending.at(-1);
    if (last && last.type === event.type && last.messageId === event.messageId) {
      this.pending[this.pending.length - 1] = { ...last, text: last.text + event.text };
    } else {
      this.pending.push(event);
    }
  }

  take(): DeltaEvent[] {
    const taken = this.pending;
    this.pending = [];
    return taken;
  }
}
