/** What a scripted turn says, in order. Text is split into chunks of `chunkSize` characters. */
export type ScriptStep =
  | { readonly kind: 'text'; readonly text: string; readonly chunkSize?: number }
  | { readonly kind: 'reasoning'; readonly text: string; readonly chunkSize?: number }
  | { readonly kind: 'tool_call'; readonly id: string; readonly name: string; readonly arguments: string; readonly chunks?: number }
  /** Anthropic only: a `redacted_thinking` block with this encrypted `data` (the other protocols leave it out). */
  | { readonly kind: 'redacted_thinking'; readonly data: string };

/** How a turn goes wrong. */
export type ScriptFault =
  /** Answer this HTTP status instead of a stream; `body`, when given, is sent as it is, a real server's error body. */
  | {
      readonly kind: 'status';
      readonly status: number;
      readonly message?: string;
      readonly retryAfterSeconds?: number;
      readonly body?: unknown;
    }
  /** Close the connection after this many chunks. */
  | { readonly kind: 'drop'; readonly afterChunks: number }
  /** Send a chunk that is not JSON after this many chunks. */
  | { readonly kind: 'malformed'; readonly afterChunks: number }
  /** Send headers, then nothing at all. */
  | { readonly kind: 'stall' }
  /**
   * After this many chunks, send `body` as the stream's error event and end: LM Studio's way of failing mid-stream, and
   * Ollama's `{"error": "..."}` line.
   */
  | { readonly kind: 'stream_error'; readonly afterChunks: number; readonly body: unknown };

export interface ScriptedTurn {
  readonly steps: readonly ScriptStep[];
  readonly usage?: { readonly inputTokens: number; readonly outputTokens: number };
  readonly fault?: ScriptFault;
  /** Wait between chunks: a slow stream. */
  readonly chunkDelayMs?: number;
  /** The answer ran into its output limit: finish_reason `length`, stop_reason `max_tokens`, done_reason `length`. */
  readonly stoppedAtLimit?: boolean;
  /**
   * Ollama only: where its tool calls travel. Ollama parses a call out of the model's text and sends it in a frame of its
   * own as soon as it is complete (`own`, the default: models Ollama renders and parses itself); a model whose chat
   * llama-server runs natively has all its calls in the final `done` frame (`final`).
   */
  readonly toolCallFrame?: 'own' | 'final';
}

/** One unit the protocol writers turn into wire chunks. */
export type ScriptChunk =
  | { readonly kind: 'text'; readonly text: string }
  | { readonly kind: 'reasoning'; readonly text: string }
  | { readonly kind: 'tool_start'; readonly index: number; readonly id: string; readonly name: string }
  | { readonly kind: 'tool_arguments'; readonly index: number; readonly piece: string }
  | { readonly kind: 'tool_end'; readonly index: number };

/** The chunks of the Anthropic protocol, which alone has redacted thinking. */
export type AnthropicChunk = ScriptChunk | { readonly kind: 'redacted_thinking'; readonly data: string };

function split(text: string, size: number): string[] {
  const pieces: string[] = [];
  for (let offset = 0; offset < text.length; offset += size) pieces.push(text.slice(offset, offset + size));
  return pieces;
}

/** Flattens a turn's steps into chunks, the same for every protocol. */
export function chunksOf(turn: ScriptedTurn): ScriptChunk[] {
  return anthropicChunksOf(turn).filter((chunk): chunk is ScriptChunk => chunk.kind !== 'redacted_thinking');
}

/** The chunks with redacted thinking, for the Anthropic protocol. */
export function anthropicChunksOf(turn: ScriptedTurn): AnthropicChunk[] {
  const chunks: AnthropicChunk[] = [];
  let toolIndex = 0;
  for (const step of turn.steps) {
    if (step.kind === 'redacted_thinking') chunks.push({ kind: 'redacted_thinking', data: step.data });
    else if (step.kind === 'text' || step.kind === 'reasoning') {
      for (const piece of split(step.text, Math.max(1, step.chunkSize ?? 4))) chunks.push({ kind: step.kind, text: piece });
    } else {
      const index = toolIndex++;
      chunks.push({ kind: 'tool_start', index, id: step.id, name: step.name });
      const pieceSize = Math.max(1, Math.ceil(step.arguments.length / Math.max(1, step.chunks ?? 3)));
      for (const piece of split(step.arguments, pieceSize)) chunks.push({ kind: 'tool_arguments', index, piece });
      chunks.push({ kind: 'tool_end', index });
    }
  }
  return chunks;
}

/** The turn's scripted usage, or the prompt's counted size and an estimate of the answer's. */
export function defaultUsage(turn: ScriptedTurn, promptTokens: number): { inputTokens: number; outputTokens: number } {
  if (turn.usage) return turn.usage;
  const characters = turn.steps.reduce(
    (sum, step) => sum + (step.kind === 'tool_call' ? step.arguments.length : step.kind === 'redacted_thinking' ? 0 : step.text.length),
    0,
  );
  return { inputTokens: promptTokens, outputTokens: Math.max(1, Math.ceil(characters / 4)) };
}

/** A call as a text-only model writes it: a `<tool_call>` block with its name and arguments (as written, valid or not). */
export function callBlockText(name: string, args: string): string {
  return `<tool_call>\n{"name": ${JSON.stringify(name)}, "arguments": ${args.trim() || '{}'}}\n</tool_call>`;
}

/** The turn as a model without native tool calls says it: each call becomes a block in its text, streamed in pieces. */
export function asTextOnly(turn: ScriptedTurn): ScriptedTurn {
  const steps = turn.steps.map((step): ScriptStep => {
    if (step.kind !== 'tool_call') return step;
    const text = `\n${callBlockText(step.name, step.arguments)}\n`;
    return { kind: 'text', text, chunkSize: Math.max(1, Math.ceil(text.length / ((step.chunks ?? 3) + 2))) };
  });
  return { ...turn, steps };
}

export function textTurn(text: string, options: { chunkSize?: number; chunkDelayMs?: number } = {}): ScriptedTurn {
  return {
    steps: [{ kind: 'text', text, ...(options.chunkSize === undefined ? {} : { chunkSize: options.chunkSize }) }],
    ...(options.chunkDelayMs === undefined ? {} : { chunkDelayMs: options.chunkDelayMs }),
  };
}
