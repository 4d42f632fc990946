/*
 * The events a turn emits and the journal records, as one closed union of the families in events/, and the tool-call
 * drafts streamed to the UI but never journalled.
 */

import { z } from 'zod';
import { idSchema } from './input-limits';
import { checkpointEvents } from './events/checkpoints';
import { gateEvents } from './events/gates';
import { messageEvents } from './events/messages';
import { modelContextEvents } from './events/model-context';
import { toolCallEvents } from './events/tool-calls';
import { turnEvents } from './events/turns';

// The shapes the families' events are made of, named here too for their importers.
export { givenCodeMapSchema, type GivenCodeMap } from './events/messages';
export { toolCallStatusSchema, type ToolCallStatus } from './events/tool-calls';
export { planStepSchema, type PlanStep } from './events/gates';

/**
 * Version of the event format written to the journal. Bump it when an event changes shape and keep
 * a sample of the old format as a test fixture.
 */
export const eventFormatVersion = 1;

/** Every event the runtime emits and journals: one closed union, snake_case, past tense or noun. */
export const runtimeEventSchema = z.discriminatedUnion('type', [
  ...messageEvents,
  ...turnEvents,
  ...modelContextEvents,
  ...toolCallEvents,
  ...gateEvents,
  ...checkpointEvents,
]);
export type RuntimeEvent = z.infer<typeof runtimeEventSchema>;
export type RuntimeEventType = RuntimeEvent['type'];

const draftRef = {
  turnId: idSchema,
  messageId: idSchema,
  /** Which call of the response it is, with `callId`: servers reuse ids such as call_0 from one response to the next. */
  index: z.number().int().nonnegative(),
  callId: z.string().max(200),
};

/**
 * A tool call as the model writes it, before its response has finished: sent to the UI per frame and
 * never journalled. The `tool_call_requested` that follows the response holds the whole call (a long
 * file's content would otherwise be stored twice); a draft that never gets there was never sent.
 */
export const toolCallDraftEventSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('tool_call_draft_started'), ...draftRef, tool: z.string() }),
  z.object({ type: z.literal('tool_call_draft_delta'), ...draftRef, text: z.string() }),
]);
export type ToolCallDraftEvent = z.infer<typeof toolCallDraftEventSchema>;

/** A journalled event: its place in the session's order and when it happened. */
export const journalEntrySchema = z.object({
  sessionId: idSchema,
  seq: z.number().int().nonnegative(),
  at: z.number().int(),
  event: runtimeEventSchema,
});
export type JournalEntry = z.infer<typeof journalEntrySchema>;
