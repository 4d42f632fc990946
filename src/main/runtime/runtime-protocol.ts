/*
 * What the app and the built-in runtime's process say to each other. Both sides check what arrives: a message that does
 * not parse is answered with an error (the process) or ends the process (the app), never half-used.
 */

import { z } from 'zod';
import { errorInfoSchema } from '../../shared/errors';
import { machineInfoSchema } from '../../shared/local-models';

const chatMessageSchema = z.discriminatedUnion('role', [
  z.object({ role: z.literal('user'), content: z.string() }),
  z.object({
    role: z.literal('assistant'),
    content: z.string(),
    toolCalls: z.array(z.object({ id: z.string(), name: z.string(), arguments: z.string() })).optional(),
  }),
  z.object({ role: z.literal('tool'), toolCallId: z.string(), content: z.string(), isError: z.boolean().optional() }),
]);
export type RuntimeChatMessage = z.infer<typeof chatMessageSchema>;

/** A tool as the runtime offers it: its parameters already in the JSON Schema subset the grammar takes. */
const runtimeToolSchema = z.object({
  name: z.string(),
  description: z.string(),
  parameters: z.record(z.string(), z.unknown()),
});
export type RuntimeTool = z.infer<typeof runtimeToolSchema>;

export const generateRequestSchema = z.object({
  /** The GGUF file to answer with; loaded first when another (or none) is. */
  modelPath: z.string().min(1),
  /** The window to run it with, in tokens; the model is loaded again when it runs with another. */
  contextSize: z.number().int().min(256),
  system: z.string().optional(),
  messages: z.array(chatMessageSchema),
  tools: z.array(runtimeToolSchema),
  maxTokens: z.number().int().positive().optional(),
  temperature: z.number().min(0).max(2).optional(),
  /**
   * The line of requests this one continues (`ModelRequest.cacheKey`): the runtime keeps one evaluated prompt per key,
   * memory allowing, so the next request of the line reads only what it adds. Absent: the line of requests without one.
   */
  cacheKey: z.string().min(1).optional(),
});
export type GenerateRequest = z.infer<typeof generateRequestSchema>;

/** From the app: each request carries an id its answers repeat. */
export const runtimeRequestSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('generate'), id: z.number().int(), request: generateRequestSchema }),
  /** Stops a generation; answered by the generation's own end. */
  z.object({ type: z.literal('cancel'), id: z.number().int() }),
  z.object({ type: z.literal('count'), id: z.number().int(), modelPath: z.string().min(1), text: z.string() }),
  z.object({ type: z.literal('machine'), id: z.number().int() }),
  /** Frees the loaded model and its context. */
  z.object({ type: z.literal('unload'), id: z.number().int() }),
]);
export type RuntimeRequest = z.infer<typeof runtimeRequestSchema>;

/** A piece of a generation, in the app's own stream vocabulary (see `ModelStreamEvent`). */
export const runtimeStreamEventSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('text_delta'), text: z.string() }),
  z.object({ type: z.literal('reasoning_delta'), text: z.string() }),
  z.object({ type: z.literal('tool_call_started'), index: z.number().int(), id: z.string(), name: z.string() }),
  z.object({ type: z.literal('tool_call_arguments_delta'), index: z.number().int(), id: z.string(), delta: z.string() }),
  z.object({ type: z.literal('tool_call_ready'), index: z.number().int(), id: z.string(), name: z.string(), arguments: z.string() }),
  /**
   * `inputTokens`: the whole prompt; `cacheReadTokens`: of those, the beginning the sequence held already and kept;
   * `meteredInputTokens`: what node-llama-cpp's token meter counted as input for this answer (the prompt tokens it read
   * but the last, whose logits it computed and so counts as output), the figure that shows what the cache saved.
   */
  z.object({
    type: z.literal('usage'),
    inputTokens: z.number().int(),
    outputTokens: z.number().int(),
    cacheReadTokens: z.number().int().nonnegative(),
    meteredInputTokens: z.number().int().nonnegative(),
  }),
  z.object({ type: z.literal('done'), stopReason: z.enum(['end_turn', 'tool_use', 'max_tokens', 'other']) }),
  z.object({
    type: z.literal('error'),
    error: errorInfoSchema,
    window: z.number().int().optional(),
    promptTokens: z.number().int().optional(),
  }),
]);
export type RuntimeStreamEvent = z.infer<typeof runtimeStreamEventSchema>;

/** From the process. */
export const runtimeReplySchema = z.discriminatedUnion('type', [
  /** The process has started and loaded node-llama-cpp's binding. */
  z.object({ type: z.literal('ready'), machine: machineInfoSchema }),
  /** Pieces of a generation, several at a time: one message per token would cost more than the token. */
  z.object({ type: z.literal('events'), id: z.number().int(), events: z.array(runtimeStreamEventSchema) }),
  z.object({ type: z.literal('counted'), id: z.number().int(), tokens: z.number().int() }),
  z.object({ type: z.literal('machine'), id: z.number().int(), machine: machineInfoSchema }),
  z.object({ type: z.literal('unloaded'), id: z.number().int() }),
  z.object({ type: z.literal('failed'), id: z.number().int(), error: errorInfoSchema }),
]);
export type RuntimeReply = z.infer<typeof runtimeReplySchema>;

/** How the app reaches the process: a forked Node process under Node, an Electron utility process in the app. */
export interface RuntimeChannel {
  post(message: RuntimeRequest): void;
  onMessage(listener: (message: unknown) => void): void;
  /** Told once when the process ends, however it ends. */
  onExit(listener: (detail: string) => void): void;
  kill(): void;
}

/** Starts the runtime's process. */
export type RuntimeLauncher = () => RuntimeChannel;
