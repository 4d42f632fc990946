import { countPromptTokens, type CountedMessage } from './tokens';

/**
 * What Ollama did with one chat request's prompt: the window the model ran with and what of the prompt fit in it.
 * Ollama never says it truncated; tests read it here and see it in `prompt_eval_count`.
 */
export interface OllamaContext {
  /** The window the model was loaded with for this request, in tokens. */
  readonly window: number;
  /** The whole prompt as sent: every message and the tool definitions. */
  readonly promptTokens: number;
  /** What the model read after truncation; the final frame's `prompt_eval_count`. */
  readonly keptTokens: number;
  /** Messages dropped from the front of the conversation; system messages are never dropped. */
  readonly droppedMessages: number;
  /** Whether the runner also cut tokens out of the prompt (a context shift), because even the last message did not fit. */
  readonly shifted: boolean;
  /** Whether the request was refused instead: too long, and context shift off. */
  readonly refused: boolean;
}

/** Ollama's `num_keep` default: the first tokens a context shift keeps. */
const numKeep = 4;

function positiveInteger(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isInteger(value) && value > 0 ? value : undefined;
}

/**
 * The window Ollama loads a model with: the request's `options.num_ctx`, else the Modelfile's, else the server's
 * default (OLLAMA_CONTEXT_LENGTH, or by VRAM 4096 / 32768 / 262144: server/routes.go, Serve); at least 4, and never
 * more than the model was trained for (server/sched.go, effectiveContext).
 */
export function loadedWindow(
  requestOptions: unknown,
  modelfileNumCtx: number | undefined,
  defaultWindow: number,
  trained?: number,
): number {
  const asked = positiveInteger((requestOptions as { num_ctx?: unknown } | undefined)?.num_ctx) ?? modelfileNumCtx ?? defaultWindow;
  const window = Math.max(4, asked);
  return trained !== undefined && trained > 0 ? Math.min(window, trained) : window;
}

/** The system messages before `start`, then every message from `start` on: what Ollama renders after dropping the rest. */
function keptFrom(messages: readonly CountedMessage[], start: number): CountedMessage[] {
  return [...messages.slice(0, start).filter((message) => message.role === 'system'), ...messages.slice(start)];
}

/**
 * Fits a chat prompt into a window the way current Ollama does, silently. First, whole messages are dropped from the
 * front until the rendered prompt fits, keeping every system message and always the last message (server/prompt.go,
 * chatPrompt). If it still does not fit, the runner keeps the first `num_keep` tokens (and the BOS token) and cuts
 * from after them until about half the window is left (llm/llama_server.go, completionPromptForRequest); with context
 * shift off it refuses the request instead. A request with `truncate: false` keeps every message.
 */
export function fitPrompt(
  messages: readonly CountedMessage[],
  tools: unknown,
  window: number,
  contextShift: boolean,
  truncate = true,
): OllamaContext {
  const promptTokens = countPromptTokens(messages, tools);
  let start = 0;
  let tokens = promptTokens;
  // `truncate: false` in the request: no message is dropped (server/routes.go, ChatHandler).
  if (tokens > window && truncate) {
    for (start = 0; start < messages.length; start += 1) {
      tokens = countPromptTokens(keptFrom(messages, start), tools);
      if (tokens <= window || start === messages.length - 1) break;
    }
  }
  const droppedMessages = messages.slice(0, start).filter((message) => message.role !== 'system').length;
  const fitted = { window, promptTokens, droppedMessages, keptTokens: tokens, shifted: false, refused: false };
  // The runner needs one free position to generate, so a prompt of exactly the window does not fit either.
  if (tokens <= window - 1) return fitted;
  if (!contextShift) return { ...fitted, refused: true };
  const keep = Math.min(numKeep + 1, window - 1);
  return { ...fitted, keptTokens: window - Math.max(Math.floor((window - keep) / 2), 1), shifted: true };
}
