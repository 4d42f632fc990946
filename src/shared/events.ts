import { z } from 'zod';
import { errorInfoSchema } from './errors';
import { idSchema, modelChoiceSchema, sessionStatusSchema } from './domain';

/**
 * Version of the event format written to the journal. Bump it when an event changes shape and keep
 * a sample of the old format as a test fixture.
 */
export const eventFormatVersion = 1;

const turnRef = { turnId: idSchema };

/** Every event the runtime emits and journals: one closed union, snake_case, past tense or noun. */
export const runtimeEventSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('user_message'), ...turnRef, messageId: idSchema, text: z.string() }),
  z.object({
    type: z.literal('run_started'),
    ...turnRef,
    model: modelChoiceSchema,
    providerKind: z.string(),
  }),
  z.object({ type: z.literal('status_changed'), status: sessionStatusSchema }),
  z.object({ type: z.literal('assistant_message_started'), ...turnRef, messageId: idSchema }),
  z.object({ type: z.literal('text_delta'), ...turnRef, messageId: idSchema, text: z.string() }),
  z.object({ type: z.literal('reasoning_delta'), ...turnRef, messageId: idSchema, text: z.string() }),
  z.object({
    type: z.literal('model_call_finished'),
    ...turnRef,
    messageId: idSchema,
    inputTokens: z.number().int().nonnegative(),
    outputTokens: z.number().int().nonnegative(),
    latencyMs: z.number().nonnegative(),
    attempts: z.number().int().positive(),
  }),
  z.object({
    type: z.literal('model_retry_scheduled'),
    ...turnRef,
    attempt: z.number().int().positive(),
    delayMs: z.number().nonnegative(),
    error: errorInfoSchema,
  }),
  z.object({
    type: z.literal('run_finished'),
    ...turnRef,
    status: z.enum(['completed', 'completed_with_errors', 'failed', 'cancelled']),
    error: errorInfoSchema.optional(),
  }),
]);
export type RuntimeEvent = z.infer<typeof runtimeEventSchema>;
export type RuntimeEventType = RuntimeEvent['type'];

/** A journalled event: its place in the session's order and when it happened. */
export const journalEntrySchema = z.object({
  sessionId: idSchema,
  seq: z.number().int().nonnegative(),
  at: z.number().int(),
  event: runtimeEventSchema,
});
export type JournalEntry = z.infer<typeof journalEntrySchema>;
