/*
 * The IPC channels of memories and of the system prompts the model was sent, spread into the contract.
 */

import { z } from 'zod';
import { idSchema, limits } from '../domain';
import { assembledPromptSchema, memorySchema, memoryScopeSchema, memoryTextSchema } from '../prompt';

const workspacePathSchema = z.string().min(1).max(limits.pathLength);

/**
 * The channels of memories and of the prompts the model was sent, spread into the contract (`channels`). A memory's
 * text is checked here as everywhere: empty or enormous text is refused before anything is written.
 */
export const memoryChannels = {
  /** A workspace's memories and the global ones (only the global ones without a workspace), newest first; `search` narrows them. */
  'memory:list': {
    input: z.object({ workspacePath: workspacePathSchema.nullable(), search: z.string().max(500).optional() }).strict(),
    output: z.array(memorySchema),
  },
  'memory:add': {
    input: z.object({ scope: memoryScopeSchema, workspacePath: workspacePathSchema.nullable(), text: memoryTextSchema }).strict(),
    output: memorySchema,
  },
  'memory:update': { input: z.object({ id: idSchema, text: memoryTextSchema }).strict(), output: memorySchema },
  'memory:delete': { input: z.object({ id: idSchema }).strict(), output: z.object({ deleted: z.literal(true) }) },
  /** The system prompt a model call was sent (what the model saw), by the id its `context_measured` event names. */
  'prompt:get': { input: z.object({ promptId: z.string().min(1).max(100) }).strict(), output: assembledPromptSchema },
} as const satisfies Record<string, { input: z.ZodType; output: z.ZodType }>;
