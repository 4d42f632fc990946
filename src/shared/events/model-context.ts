/*
 * The events of the model's calls and of what it sees: a call finished, retried or sent to the fallback model, and the
 * context measured, compacted or found cut by the server.
 */

import { z } from 'zod';
import { errorInfoSchema } from '../errors';
import { idSchema } from '../input-limits';
import { modelChoiceSchema, windowSourceSchema } from '../model-endpoints';
import { turnRef } from './refs';

/** The events of model calls and of the context, as members of the event union. */
export const modelContextEvents = [
  z.object({
    type: z.literal('model_call_finished'),
    ...turnRef,
    messageId: idSchema,
    inputTokens: z.number().int().nonnegative(),
    outputTokens: z.number().int().nonnegative(),
    latencyMs: z.number().nonnegative(),
    attempts: z.number().int().positive(),
    /** Null where the price is not known; 0 for local models. */
    costUsd: z.number().nonnegative().nullable().optional(),
    /** Of the input tokens, those the server said it took from its prompt cache, and those it wrote to a billed cache. */
    cacheReadTokens: z.number().int().nonnegative().optional(),
    cacheWriteTokens: z.number().int().nonnegative().optional(),
  }),
  /** The model could not be reached or was overloaded: the rest of the turn uses the profile's fallback model. */
  z.object({
    type: z.literal('model_fallback_used'),
    ...turnRef,
    from: modelChoiceSchema,
    to: modelChoiceSchema,
    error: errorInfoSchema,
    message: z.string(),
  }),
  z.object({
    type: z.literal('model_retry_scheduled'),
    ...turnRef,
    attempt: z.number().int().positive(),
    delayMs: z.number().nonnegative(),
    error: errorInfoSchema,
  }),
  /** What the next model request takes of the window, counted before it was sent. */
  z.object({
    type: z.literal('context_measured'),
    ...turnRef,
    /** The whole request: system prompt, tool definitions and messages. */
    tokens: z.number().int().nonnegative(),
    window: z.number().int().positive(),
    windowSource: windowSourceSchema,
    windowDetail: z.string(),
    /** Above this the request is made smaller first. */
    threshold: z.number().int().positive(),
    /** Room kept for the answer (the request's max_tokens). */
    reserve: z.number().int().nonnegative(),
    /** How the tokens were counted: the server's tokenizer, an estimate calibrated on the server's counts, or a plain estimate. */
    counting: z.enum(['tokenizer', 'usage', 'estimate']),
    /** Old tool results shortened in this request. */
    shortened: z.number().int().nonnegative(),
    /** Tokens at its beginning unchanged from the last request on this line to this model (a server's cache need not read them again); absent for the first. */
    shared: z.number().int().nonnegative().optional(),
    /** The system prompt sent with the request, as kept (`prompt:get`); absent in journals from before prompts were kept. */
    promptId: z.string().min(1).max(100).optional(),
  }),
  /**
   * Older messages were summarized so the conversation fits the window. The journal keeps them all:
   * only what the model sees changed, from this point of the line on.
   */
  z.object({
    type: z.literal('context_compacted'),
    ...turnRef,
    compactionId: idSchema,
    summary: z.string(),
    /** Index in the conversation of the first message seen verbatim after the summary. */
    upTo: z.number().int().nonnegative(),
    /** Messages the summary stands for, and the turns they belong to. */
    messages: z.number().int().nonnegative(),
    turns: z.number().int().nonnegative(),
    tokensBefore: z.number().int().nonnegative(),
    tokensAfter: z.number().int().nonnegative(),
    trigger: z.enum(['threshold', 'overflow', 'manual']),
    /**
     * Written by the model, or a list of the steps made by the app when the model could not summarize; `shortened`:
     * nothing was summarized (the summary is the one before), older results were only shortened.
     */
    method: z.enum(['model', 'digest', 'shortened']),
    note: z.string().optional(),
    /** Older messages seen shortened from here on (index in the conversation, characters kept or null for "read again later"). */
    cuts: z
      .array(z.object({ at: z.number().int().nonnegative(), keep: z.number().int().nonnegative().nullable() }))
      .max(100_000)
      .optional(),
    /** The summary was asked for as a continuation of the conversation the server had read already. */
    continued: z.boolean().optional(),
  }),
  /** The server counted far fewer prompt tokens than were sent: it cut the prompt without saying so. */
  z.object({
    type: z.literal('context_truncated'),
    ...turnRef,
    sentTokens: z.number().int().nonnegative(),
    reportedTokens: z.number().int().nonnegative(),
    message: z.string(),
  }),
] as const;
