/*
 * What the model is told before the conversation (the system prompt, in parts), and the memories it may be told of.
 */

import { z } from 'zod';

/** The longest memory, in characters: a fact, not a file. */
export const maxMemoryChars = 2_000;

export const memoryScopeSchema = z.enum(['workspace', 'global']);
export type MemoryScope = z.infer<typeof memoryScopeSchema>;

/** A memory's text as a person or the agent gives it: trimmed, not empty, not enormous. */
export const memoryTextSchema = z
  .string()
  .trim()
  .min(1, 'A memory cannot be empty.')
  .max(maxMemoryChars, `A memory holds at most ${maxMemoryChars} characters: keep it to one fact.`);

export const memorySchema = z.object({
  id: z.string().min(1).max(100),
  scope: memoryScopeSchema,
  /** The workspace a `workspace` memory belongs to; null for `global`. */
  workspacePath: z.string().nullable(),
  text: z.string(),
  /** Who saved it: the person (Memory panel) or the agent (`remember`). */
  source: z.enum(['person', 'agent']),
  /** The session the agent saved it in. */
  sessionId: z.string().nullable(),
  createdAt: z.number().int(),
  updatedAt: z.number().int(),
});
export type Memory = z.infer<typeof memorySchema>;

export const promptPartKindSchema = z.enum(['profile', 'environment', 'tools', 'instructions', 'memory']);
export type PromptPartKind = z.infer<typeof promptPartKindSchema>;

/** One part of a system prompt: what it is, where it came from, and what it cost of its budget. */
export const promptPartSchema = z.object({
  kind: promptPartKindSchema,
  title: z.string(),
  /** Where it came from: a file's path, a memory's origin, the profile's name. */
  source: z.string(),
  text: z.string(),
  tokens: z.number().int().nonnegative(),
  /** The most this kind of part may take, in tokens, for the window of the call. */
  budget: z.number().int().nonnegative(),
  /** It was cut to fit its budget. */
  cut: z.boolean(),
});
export type PromptPart = z.infer<typeof promptPartSchema>;

/** A system prompt as it was sent: its whole text, its parts, and what was left out and why. */
export const assembledPromptSchema = z.object({
  format: z.literal(1),
  text: z.string(),
  parts: z.array(promptPartSchema),
  /** The tools offered with it, by name. */
  tools: z.array(z.string()),
  /** What was left out or could not be read (an instruction file too large, binary or unreadable; memories over budget). */
  notes: z.array(z.string()),
  window: z.number().int().positive(),
});
export type AssembledPrompt = z.infer<typeof assembledPromptSchema>;
