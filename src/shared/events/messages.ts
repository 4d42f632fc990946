/*
 * The conversation's events: the person's messages (sent or queued), the memories and repository map given with them,
 * and the model's answer as it streams.
 */

import { z } from 'zod';
import { attachmentSchema } from '../attachments';
import { idSchema } from '../input-limits';
import { turnRef } from './refs';

/** A repository map given to the model with the person's message: the map, and how much of the workspace it shows. */
export const givenCodeMapSchema = z.object({
  text: z.string().max(100_000),
  files: z.number().int().nonnegative(),
  definitions: z.number().int().nonnegative(),
  /** Source files the index holds. */
  indexed: z.number().int().nonnegative(),
  /** Its tokens, by the model's ratio. */
  tokens: z.number().int().nonnegative(),
});
export type GivenCodeMap = z.infer<typeof givenCodeMapSchema>;

/** The events of the conversation, as members of the event union. */
export const messageEvents = [
  z.object({
    type: z.literal('user_message'),
    ...turnRef,
    messageId: idSchema,
    text: z.string(),
    /** Files attached to the message, as read when it was sent (absent in journals from before attachments). */
    attachments: z.array(attachmentSchema).optional(),
  }),
  /** Memories relevant to the person's message, given to the model after it (not in the system prompt, which stays the same). */
  z.object({
    type: z.literal('memories_recalled'),
    ...turnRef,
    /** The block the model reads after the person's message. */
    text: z.string().max(100_000),
    memories: z.array(z.object({ id: z.string().max(100), text: z.string().max(20_000) })).max(100),
    /** The repository map given with it (absent when none was: off, unchanged, or not ready). */
    codeMap: givenCodeMapSchema.optional(),
  }),
  z.object({ type: z.literal('assistant_message_started'), ...turnRef, messageId: idSchema }),
  z.object({ type: z.literal('text_delta'), ...turnRef, messageId: idSchema, text: z.string() }),
  z.object({ type: z.literal('reasoning_delta'), ...turnRef, messageId: idSchema, text: z.string() }),
  z.object({ type: z.literal('message_queued'), text: z.string(), replaced: z.boolean() }),
  z.object({ type: z.literal('queue_cleared'), reason: z.enum(['cleared', 'started']) }),
] as const;
