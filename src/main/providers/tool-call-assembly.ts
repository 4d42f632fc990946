/*
 * Puts together the tool calls a chat-completions server streams in pieces, however it numbers them.
 */

import type { ModelStreamEvent } from '../agent/ports/model-provider';

/** A piece of a tool call as a chat-completions server streams it: any field but the index may be missing. */
export interface ToolCallPiece {
  /** The server's number for the call; some servers leave it out (Ollama before 0.4.7, ollama/ollama#7881). */
  readonly index?: number | null;
  readonly id?: string | null;
  readonly name?: string | null;
  readonly arguments?: string | null;
}

interface AssembledCall {
  /** The call's place in the answer, which is the index the app's events carry. */
  readonly position: number;
  readonly id: string;
  /** Whether the server named the call; a call the provider had to name cannot be told apart by id. */
  readonly serverId: boolean;
  name: string;
  arguments: string;
}

/**
 * Puts streamed tool calls together, keyed by the server's index and the call's id.
 *
 * OpenAI numbers the calls of one answer 0, 1, 2 and sends the id only with a call's first piece. Several servers
 * number every call 0 and tell them apart by id alone: Ollama's OpenAI layer (ollama/ollama#15457), llama-server
 * b7622 (ggml-org/llama.cpp#18591), proxies translating other APIs. So a piece with an id the call at its index does
 * not have starts a new call, and a piece without an id continues the latest call at its index.
 */
export class ToolCallAssembly {
  private readonly calls: AssembledCall[] = [];
  /** The latest call begun at each server index. */
  private readonly latestAt = new Map<number, AssembledCall>();

  get size(): number {
    return this.calls.length;
  }

  /** The events of one piece: `tool_call_started` when it begins a call, then its arguments, if it carries any. */
  *add(piece: ToolCallPiece): Iterable<ModelStreamEvent> {
    const index = piece.index ?? 0;
    const id = piece.id ? piece.id : null;
    let call = this.latestAt.get(index);
    if (!call || (id !== null && call.serverId && id !== call.id)) {
      call = this.begin(index, id);
      if (piece.name) call.name = piece.name;
      yield { type: 'tool_call_started', index: call.position, id: call.id, name: call.name };
    } else if (!call.name && piece.name) call.name = piece.name;
    if (piece.arguments) {
      call.arguments += piece.arguments;
      yield { type: 'tool_call_arguments_delta', index: call.position, id: call.id, delta: piece.arguments };
    }
  }

  /** Every call whole, in the order they began; only for an answer the server finished. */
  *ready(): Iterable<ModelStreamEvent> {
    for (const call of this.calls)
      yield { type: 'tool_call_ready', index: call.position, id: call.id, name: call.name, arguments: call.arguments || '{}' };
  }

  private begin(index: number, id: string | null): AssembledCall {
    const position = this.calls.length;
    const call: AssembledCall = { position, id: id ?? `call_${position}`, serverId: id !== null, name: '', arguments: '' };
    this.calls.push(call);
    this.latestAt.set(index, call);
    return call;
  }
}
