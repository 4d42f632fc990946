/*
 * Ollama's own API: the requests the provider sends and, validated leniently (unknown fields pass), the answers it
 * reads back. See https://github.com/ollama/ollama/blob/main/docs/api.md and api/types.go in Ollama's source.
 */

import { z } from 'zod';
import type { ModelRequest } from '../agent/ports/model-provider';

/** A tool call as Ollama sends and takes it: the arguments are a JSON object, not a string; the id may be absent. */
const toolCallSchema = z.object({
  id: z.string().optional(),
  function: z.object({ name: z.string(), arguments: z.unknown().optional() }),
});
export type OllamaToolCall = z.infer<typeof toolCallSchema>;

/** One line of a streamed /api/chat answer: a piece of the message, the final `done` frame, or an error. */
export const chatFrameSchema = z.object({
  message: z
    .object({
      content: z.string().nullish(),
      thinking: z.string().nullish(),
      tool_calls: z.array(toolCallSchema).nullish(),
    })
    .nullish(),
  done: z.boolean().nullish(),
  done_reason: z.string().nullish(),
  prompt_eval_count: z.number().nullish(),
  eval_count: z.number().nullish(),
  error: z.union([z.string(), z.object({ message: z.string() })]).nullish(),
});
export type ChatFrame = z.infer<typeof chatFrameSchema>;

/** GET /api/tags. Ollama 0.30 and later give the trained window in `details.context_length`. */
export const tagsSchema = z.object({
  models: z.array(
    z.object({
      name: z.string(),
      details: z.object({ context_length: z.unknown().optional() }).nullish(),
    }),
  ),
});

/** POST /api/show: the model's GGUF metadata and its Modelfile parameters as text. */
export const showSchema = z.object({
  model_info: z.record(z.string(), z.unknown()).nullish(),
  parameters: z.string().nullish(),
  /** What the model can do: `completion`, `tools`, `vision`, `thinking`… */
  capabilities: z.array(z.string()).nullish(),
});

/** GET /api/ps: the models loaded now; `context_length` is the window each runs with (Ollama 0.9.7 and later). */
export const psSchema = z.object({
  models: z.array(z.object({ name: z.string().nullish(), model: z.string().nullish(), context_length: z.unknown().optional() })).nullish(),
});

/** The error body Ollama sends with a failed status: `{"error": "..."}`. */
export const errorBodySchema = z.object({ error: z.union([z.string(), z.object({ message: z.string() })]) });

/** The message of an `error` field, which Ollama sends as a string and proxies sometimes as an object. */
export const errorText = (error: string | { message: string }): string => (typeof error === 'string' ? error : error.message);

/** Larger than any model's window: a figure above it is garbage, not a window. */
const absurdWindow = 10_000_000;

/** A window in tokens if `value` is one (a positive number within reason), else undefined. */
export function windowFigure(value: unknown): number | undefined {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 1 || value > absurdWindow) return undefined;
  return Math.floor(value);
}

/** A Modelfile's `PARAMETER num_ctx`, from /api/show's `parameters` text (one `name value` pair a line). */
export function modelfileNumCtx(parameters: string | null | undefined): number | undefined {
  const match = /^\s*num_ctx\s+(\S+)\s*$/m.exec(parameters ?? '');
  return match ? windowFigure(Number(match[1])) : undefined;
}

/** The trained window from /api/show: the GGUF metadata's `<architecture>.context_length`. */
export function trainedWindow(show: z.infer<typeof showSchema>): number | undefined {
  const info = show.model_info ?? {};
  const architecture = info['general.architecture'];
  return typeof architecture === 'string' ? windowFigure(info[`${architecture}.context_length`]) : undefined;
}

/** `llama3.2` and `llama3.2:latest` are one model to Ollama, and /api/ps names models with their tag. */
export function sameModel(a: string, b: string): boolean {
  const tagged = (name: string): string => (name.includes(':') ? name : `${name}:latest`);
  return tagged(a) === tagged(b);
}

/** Ollama wants a tool call's arguments as an object; the conversation stores them as JSON text. */
function argumentsObject(text: string): Record<string, unknown> {
  try {
    const parsed: unknown = JSON.parse(text);
    if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)) return parsed as Record<string, unknown>;
  } catch {
    // Arguments the model wrote badly were answered as a failed call already; Ollama only needs a valid object here.
  }
  return {};
}

type OllamaMessage = Record<string, unknown> & { role: 'system' | 'user' | 'assistant' | 'tool'; content: string };

/**
 * The conversation in Ollama's shape: the system prompt as a `system` message, assistant tool calls with object
 * arguments, and tool results as `tool` messages naming the tool (`tool_name`), which templates use to match them.
 */
export function toOllamaMessages(request: ModelRequest): OllamaMessage[] {
  const messages: OllamaMessage[] = [];
  const toolNames = new Map<string, string>();
  if (request.system) messages.push({ role: 'system', content: request.system });
  for (const message of request.messages) {
    if (message.role === 'user') {
      // Ollama's own API takes images as a list of base64 strings beside the text.
      const images = (message.images ?? []).map((image) => image.data);
      messages.push(images.length > 0 ? { role: 'user', content: message.content, images } : { role: 'user', content: message.content });
    } else if (message.role === 'assistant') {
      const calls = message.toolCalls ?? [];
      for (const call of calls) toolNames.set(call.id, call.name);
      messages.push({
        role: 'assistant',
        content: message.content,
        ...(calls.length > 0
          ? {
              tool_calls: calls.map((call) => ({ id: call.id, function: { name: call.name, arguments: argumentsObject(call.arguments) } })),
            }
          : {}),
      });
    } else {
      const name = toolNames.get(message.toolCallId);
      messages.push({ role: 'tool', content: message.content, tool_call_id: message.toolCallId, ...(name ? { tool_name: name } : {}) });
    }
  }
  return messages;
}

/**
 * The body of POST /api/chat. The window and the answer's room go in `options`, and only when the request sets them.
 * When the app chose the window it has made the prompt fit it, so Ollama is asked to refuse a prompt that still does
 * not (`truncate` and `shift` off) rather than drop messages or cut tokens without a word: a refusal is an overflow the
 * app can act on.
 */
export function chatBody(request: ModelRequest, keepAlive: string): Record<string, unknown> {
  const options: Record<string, number> = {};
  if (request.contextWindow !== undefined) options['num_ctx'] = request.contextWindow;
  if (request.maxTokens !== undefined) options['num_predict'] = request.maxTokens;
  if (request.temperature !== undefined) options['temperature'] = request.temperature;
  return {
    model: request.model,
    messages: toOllamaMessages(request),
    stream: true,
    keep_alive: keepAlive,
    ...(request.tools && request.tools.length > 0
      ? {
          tools: request.tools.map((tool) => ({
            type: 'function',
            function: { name: tool.name, description: tool.description, parameters: tool.inputSchema },
          })),
        }
      : {}),
    ...(Object.keys(options).length > 0 ? { options } : {}),
    ...(request.contextWindow !== undefined ? { truncate: false, shift: false } : {}),
  };
}

/**
 * Splits a response body into lines. A line may arrive in several pieces and one piece may hold several lines;
 * `onChunk` is called for every piece, so an idle watchdog sees progress even inside a long line.
 */
export async function* ndjsonLines(body: ReadableStream<Uint8Array>, onChunk: () => void): AsyncGenerator<string> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let pending = '';
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      onChunk();
      pending += decoder.decode(value, { stream: true });
      let newline = pending.indexOf('\n');
      while (newline >= 0) {
        const line = pending.slice(0, newline).trim();
        pending = pending.slice(newline + 1);
        if (line.length > 0) yield line;
        newline = pending.indexOf('\n');
      }
    }
    const rest = (pending + decoder.decode()).trim();
    if (rest.length > 0) yield rest;
  } finally {
    // Stops the download when the reader leaves early (the final frame came, or the consumer stopped).
    await reader.cancel().catch(() => undefined);
  }
}
