import type { RuntimeEvent } from '../../shared/events';

export type StreamedEvent = Extract<RuntimeEvent, { type: 'text_delta' | 'reasoning_delta' | 'tool_output' }>;

const keyOf = (event: StreamedEvent): string =>
  event.type === 'tool_output' ? `tool:${event.toolCallId}` : `${event.type}:${event.messageId}`;

/**
 * Collects streamed pieces and hands them out merged: consecutive pieces of the same kind and
 * target become one event, so a flush per frame writes one journal row and sends one message
 * however many tokens or output chunks arrived.
 */
export class DeltaCoalescer {
  private pending: StreamedEvent[] = [];

  get isEmpty(): boolean {
    return this.pending.length === 0;
  }

  add(event: StreamedEvent): void {
    const last = this.pending.at(-1);
    if (last && keyOf(last) === keyOf(event)) {
      this.pending[this.pending.length - 1] = { ...last, text: last.text + event.text };
    } else {
      this.pending.push(event);
    }
  }

  take(): StreamedEvent[] {
    const taken = this.pending;
    this.pending = [];
    return taken;
  }
}
