/*
 * Streamed pieces merged per frame: text and reasoning deltas, and the drafts of tool calls.
 */
import type { RuntimeEvent, ToolCallDraftEvent } from '../../../shared/events';

export type StreamedEvent = Extract<RuntimeEvent, { type: 'text_delta' | 'reasoning_delta' | 'tool_output' }>;

/** `next` merged into `last` when both are pieces of the same stream; null when they are not. */
export type Merge<T> = (last: T, next: T) => T | null;

const keyOf = (event: StreamedEvent): string =>
  event.type === 'tool_output' ? `tool:${event.toolCallId}` : `${event.type}:${event.messageId}`;

/** Text, reasoning and tool output: pieces of the same kind and target are one. */
export const mergeStreamed: Merge<StreamedEvent> = (last, next) =>
  keyOf(last) === keyOf(next) ? { ...last, text: last.text + next.text } : null;

/** Arguments of the same call of the same response are one piece; a call's start stays on its own. */
export const mergeDrafts: Merge<ToolCallDraftEvent> = (last, next) =>
  last.type === 'tool_call_draft_delta' &&
  next.type === 'tool_call_draft_delta' &&
  last.messageId === next.messageId &&
  last.index === next.index &&
  last.callId === next.callId
    ? { ...last, text: last.text + next.text }
    : null;

/**
 * Collects streamed pieces and hands them out merged: consecutive pieces of the same kind and
 * target become one event, so a flush per frame writes one journal row and sends one message
 * however many tokens or output chunks arrived.
 */
export class DeltaCoalescer<T> {
  private pending: T[] = [];

  constructor(private readonly merge: Merge<T>) {}

  get isEmpty(): boolean {
    return this.pending.length === 0;
  }

  add(event: T): void {
    const last = this.pending.at(-1);
    const merged = last === undefined ? null : this.merge(last, event);
    if (merged === null) this.pending.push(event);
    else this.pending[this.pending.length - 1] = merged;
  }

  take(): T[] {
    const taken = this.pending;
    this.pending = [];
    return taken;
  }
}
