import type { IncomingMessage } from 'node:http';
import type { LlamaSlotUse } from './llama-slots';
import type { OllamaContext } from './ollama-context';

/** Which protocol a request spoke. */
export type Protocol = 'openai' | 'anthropic' | 'ollama';

/**
 * What the server records of a request. In a module of its own: the routes of a protocol (Ollama's) record requests
 * too, and taking this type from the server would make the server and the routes it imports import each other.
 */
export interface RecordedRequest {
  readonly protocol: Protocol;
  readonly path: string;
  readonly headers: IncomingMessage['headers'];
  readonly body: Record<string, unknown>;
  /** `performance.now()` when the whole request had arrived: benchmarks time the way to the model by it. */
  readonly receivedAt: number;
  /** The prompt's size by the server's tokenizer (tokens.ts), as a chat template would make it. */
  readonly promptTokens: number;
  /** Ollama's chat only: the window the model ran with, and how the prompt was truncated to fit it. */
  readonly context?: OllamaContext;
  /**
   * The llama.cpp personality's chat only: the slot the request ran in and the `cache_n`/`prompt_n` its `timings` reported
   * (llama-slots.ts). Set once the request has taken its slot, which may be after it was recorded.
   */
  llamaSlot?: LlamaSlotUse;
}
