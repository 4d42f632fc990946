/*
 * The text tool protocol, for models that cannot take tool definitions: tools written into the system prompt, calls
 * read from blocks in the answer.
 *
 * A call is a `<tool_call>` block holding one JSON object with `name` and `arguments`, the format most open models were
 * tuned on; results go back as plain user messages in `<tool_result>` blocks.
 */

import type { ChatMessage, ImageContent, ModelRequest, ToolCallRequest, ToolSpec } from '../agent/ports/model-provider';
import { callClose, callOpen } from './tool-blocks';

/** The system prompt's part that teaches the protocol and lists the tools. */
export function toolInstructions(tools: readonly ToolSpec[]): string {
  const lines = [
    '# Tools',
    '',
    'You can use tools. To call one, write a block like this, with the tool name and its arguments as one JSON object, and nothing else inside the block:',
    '',
    callOpen,
    '{"name": "read_file", "arguments": {"path": "README.md"}}',
    callClose,
    '',
    'Write one block per call; several blocks in one answer run in order. After your blocks, stop: the results come back in the next message, each in a <tool_result> block. Never write a <tool_result> yourself. When you need no tool, answer in plain text without any block.',
    '',
    '## Available tools',
  ];
  for (const tool of tools) {
    lines.push('', `### ${tool.name}`, tool.description.trim(), `Arguments (JSON Schema): ${JSON.stringify(tool.inputSchema)}`);
  }
  return lines.join('\n');
}

/** A call written as the model is asked to write it. */
export function callBlock(call: Pick<ToolCallRequest, 'name' | 'arguments'>): string {
  let args: unknown;
  try {
    args = JSON.parse(call.arguments || '{}');
  } catch {
    // Arguments that were never JSON are shown as they were written, as a string.
    args = call.arguments;
  }
  return `${callOpen}\n${JSON.stringify({ name: call.name, arguments: args })}\n${callClose}`;
}

function resultBlock(message: Extract<ChatMessage, { role: 'tool' }>, names: ReadonlyMap<string, string>): string {
  const name = names.get(message.toolCallId) ?? 'unknown';
  const status = message.isError ? ' status="error"' : '';
  return `<tool_result name="${name}"${status}>\n${message.content}\n</tool_result>`;
}

/**
 * The request as a model without native tools gets it: no tool definitions, the protocol in the system prompt, calls
 * as blocks in the assistant's text, results as user messages. Messages of one role in a row are joined, since many
 * chat templates insist that user and assistant alternate.
 */
export function textToolRequest(request: ModelRequest): ModelRequest {
  const names = new Map<string, string>();
  const messages: ChatMessage[] = [];
  const append = (role: 'user' | 'assistant', content: string, images: readonly ImageContent[] = []): void => {
    const last = messages.at(-1);
    if (last && last.role === role) {
      const joined = [...(last.role === 'user' ? (last.images ?? []) : []), ...images];
      messages[messages.length - 1] =
        role === 'user' && joined.length > 0
          ? { role, content: `${last.content}\n\n${content}`, images: joined }
          : { role, content: `${last.content}\n\n${content}` };
    } else messages.push(role === 'user' && images.length > 0 ? { role, content, images } : { role, content });
  };
  for (const message of request.messages) {
    if (message.role === 'user') append('user', message.content, message.images);
    else if (message.role === 'tool') append('user', resultBlock(message, names));
    else {
      const calls = message.toolCalls ?? [];
      for (const call of calls) names.set(call.id, call.name);
      const parts = [message.content.trim(), ...calls.map(callBlock)].filter((part) => part.length > 0);
      if (parts.length > 0) append('assistant', parts.join('\n\n'));
    }
  }
  const instructions = toolInstructions(request.tools ?? []);
  const { tools: _tools, ...rest } = request;
  return { ...rest, system: request.system ? `${request.system}\n\n${instructions}` : instructions, messages };
}

/** A block read: the call it asks for, or why it cannot be read. */
export type ReadBlock =
  { readonly ok: true; readonly name: string; readonly arguments: string } | { readonly ok: false; readonly problem: string };

/** Markdown fences some models put around the JSON inside a block. */
const fenced = /^```[a-zA-Z]*\s*\n?([\s\S]*?)\n?```$/;

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Reads one block's body. The arguments may also be named `parameters`, or be a JSON string of the object. */
export function readBlock(body: string): ReadBlock {
  const trimmed = body.trim();
  const text = fenced.exec(trimmed)?.[1]?.trim() ?? trimmed;
  if (text.length === 0) return { ok: false, problem: 'the block is empty' };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { ok: false, problem: `the block is not valid JSON (${(error as Error).message})` };
  }
  if (!isObject(value)) return { ok: false, problem: 'the block must hold one JSON object with "name" and "arguments"' };
  const name = value['name'];
  if (typeof name !== 'string' || name.trim().length === 0) return { ok: false, problem: 'the block has no "name" of a tool' };
  let args = value['arguments'] ?? value['parameters'] ?? {};
  if (typeof args === 'string') {
    try {
      args = JSON.parse(args || '{}');
    } catch {
      return { ok: false, problem: `the "arguments" of ${name} are a string that is not JSON` };
    }
  }
  if (!isObject(args)) return { ok: false, problem: `the "arguments" of ${name} must be a JSON object` };
  return { ok: true, name: name.trim(), arguments: JSON.stringify(args) };
}

/** The message that asks the model to write its unreadable blocks again. */
export function repairMessage(problems: readonly string[]): string {
  const listed = problems.map((problem, index) => `${index + 1}. ${problem}`).join('\n');
  return [
    `Your last answer had ${problems.length === 1 ? 'a tool call block' : 'tool call blocks'} that could not be read:`,
    listed,
    '',
    `Write ${problems.length === 1 ? 'that call' : 'those calls'} again, each as ${callOpen}{"name": "...", "arguments": {...}}${callClose} with valid JSON, and nothing else. The calls that could be read will run; do not repeat them.`,
  ].join('\n');
}
