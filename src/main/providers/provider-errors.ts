/*
 * What a model server's failure means in the app's error codes, whether to retry it, and the watchdog that ends a
 * stream gone silent.
 */

import { ModelError, type ErrorInfo } from '../../shared/errors';
import { overflowFrom, type ContextOverflow } from './context-overflow';
import { connectionFailure, failureChain, statusFailure } from './failure-words';

/** Why a stream was aborted from inside: the idle watchdog fired. */
export class StreamIdleTimeout extends Error {
  constructor(readonly idleMs: number) {
    super(`The model sent nothing for ${Math.round(idleMs / 1000)} s.`);
    this.name = 'StreamIdleTimeout';
  }
}

export interface ClassifiedError {
  readonly error: ErrorInfo;
  readonly retryAfterMs?: number;
  /** The server refused the request as too large and said how large its window is. */
  readonly window?: number;
  /** ... and how large the prompt was, by its own count. */
  readonly promptTokens?: number;
}

function readHeader(headers: unknown, name: string): string | null {
  if (headers && typeof (headers as Headers).get === 'function') return (headers as Headers).get(name);
  if (headers && typeof headers === 'object') {
    const value = (headers as Record<string, unknown>)[name];
    return typeof value === 'string' ? value : null;
  }
  return null;
}

function retryAfter(headers: unknown): number | undefined {
  const ms = readHeader(headers, 'retry-after-ms');
  if (ms !== null && Number.isFinite(Number(ms))) return Number(ms);
  const seconds = readHeader(headers, 'retry-after');
  if (seconds !== null && Number.isFinite(Number(seconds))) return Number(seconds) * 1000;
  return undefined;
}

/** What an error and its causes say, outermost first; with their codes (`UND_ERR_SOCKET`) when `codes` is set. */
function causeChain(error: unknown, codes = true): string {
  const parts: string[] = [];
  let current: unknown = error;
  for (let depth = 0; current instanceof Error && depth < 5; depth += 1) {
    const code = (current as { code?: unknown }).code;
    const message = current.message.replace(/\.$/, '');
    if (message.length > 0 && !parts.includes(message))
      parts.push(codes && typeof code === 'string' && !message.includes(code) ? `${message} (${code})` : message);
    current = current.cause;
  }
  return parts.join(': ');
}

/**
 * The server's own words. The SDKs keep the body's `error` (or, for Anthropic, the whole body):
 * an object with a message, or a bare string as LM Studio sends, which Ollama sometimes fills
 * with a llama.cpp error body as JSON text.
 */
function serverMessage(error: unknown): string {
  const body = (error as { error?: unknown }).error;
  if (typeof body === 'string' && body.length > 0) return messageInText(body);
  if (body && typeof body === 'object') {
    const inner =
      (body as { message?: unknown; error?: { message?: unknown } }).message ?? (body as { error?: { message?: unknown } }).error?.message;
    if (typeof inner === 'string' && inner.length > 0) return inner;
  }
  return error instanceof Error ? error.message : String(error);
}

/** The message inside a string that is itself an error body as JSON, or the string as it is. */
function messageInText(text: string): string {
  if (!text.startsWith('{')) return text;
  try {
    const parsed = JSON.parse(text) as { error?: { message?: unknown }; message?: unknown };
    const inner = parsed.error?.message ?? parsed.message;
    return typeof inner === 'string' && inner.length > 0 ? inner : text;
  } catch {
    return text;
  }
}

/** The error body as text, so counts the server put in fields (llama.cpp's n_ctx) can be read. */
function bodyText(error: unknown): string {
  const body = (error as { error?: unknown }).error;
  if (body === undefined || body === null) return '';
  if (typeof body === 'string') return body;
  try {
    return JSON.stringify(body);
  } catch {
    return '';
  }
}

/** Says that the request did not fit, with the numbers the server gave and its own words. */
function overflowMessage(endpoint: string, overflow: ContextOverflow, detail: string): string {
  const numbers = [
    overflow.promptTokens === undefined ? null : `the prompt is ${overflow.promptTokens} tokens`,
    overflow.window === undefined ? null : `the window is ${overflow.window} tokens`,
  ].filter((part): part is string => part !== null);
  const counts = numbers.length > 0 ? ` (${numbers.join(', ')})` : '';
  return `The request did not fit the model's window at ${endpoint}${counts}. The server said: ${detail}`;
}

/**
 * Maps what the SDKs throw (and what fetch throws under them) to the app's error codes, with a
 * message that says what happened at which endpoint. Transient failures are marked retryable.
 */
export function classifyProviderError(error: unknown, endpoint: string, signal: AbortSignal): ClassifiedError {
  const reason: unknown = signal.aborted ? signal.reason : undefined;
  if (reason instanceof StreamIdleTimeout) {
    return { error: { code: 'model_timeout', message: `${reason.message} (${endpoint})`, retryable: true } };
  }
  if (reason instanceof Error && reason.name === 'TimeoutError') {
    return {
      error: {
        code: 'model_timeout',
        message: `${endpoint} did not answer in time. A server that is still loading a model can be slow at first: try again in a moment.`,
        retryable: true,
      },
    };
  }
  if (signal.aborted) return { error: { code: 'cancelled', message: 'Stopped by the user.' } };

  const status = (error as { status?: unknown }).status;
  // Before the status: LM Studio reports an overflow inside a stream, where the SDK sets none.
  const overflow = overflowFrom(`${serverMessage(error)} ${bodyText(error)}`, typeof status === 'number' ? status : undefined);
  if (overflow !== null && error instanceof Error)
    return {
      error: { code: 'model_context_overflow', message: overflowMessage(endpoint, overflow, serverMessage(error)) },
      ...(overflow.window === undefined ? {} : { window: overflow.window }),
      ...(overflow.promptTokens === undefined ? {} : { promptTokens: overflow.promptTokens }),
    };
  if (typeof status === 'number') {
    const detail = serverMessage(error);
    const headers = (error as { headers?: unknown }).headers;
    const described = statusFailure(status, detail, endpoint);
    if (described !== null) {
      const after = status === 429 ? retryAfter(headers) : undefined;
      return { error: described, ...(after === undefined ? {} : { retryAfterMs: after }) };
    }
    return {
      error: { code: 'model_request_rejected', message: `${endpoint} refused the request (${status}). The server said: ${detail}` },
    };
  }

  // An error event in the middle of a stream has no status: the Messages API names its kind instead.
  const kind = (error as { error?: { error?: { type?: unknown } } }).error?.error?.type;
  if (kind === 'overloaded_error' || kind === 'api_error')
    return {
      error: {
        code: 'model_server_error',
        message:
          kind === 'overloaded_error'
            ? `${endpoint} is overloaded and stopped in the middle of the answer: ${serverMessage(error)}`
            : `${endpoint} failed in the middle of the answer: ${serverMessage(error)}`,
        retryable: true,
        detail: kind,
      },
    };

  // The SDKs' error classes do not all set `name`, so the constructor name is read as well.
  const name = error instanceof Error ? `${error.name} ${error.constructor.name}` : '';
  // What the network layer said (`other side closed (UND_ERR_SOCKET)`) is kept as the detail; the message says what it means.
  const chain = causeChain(error);
  const detail = chain.slice(0, 4000);
  if (/timeout/i.test(name))
    return {
      error: {
        code: 'model_timeout',
        message: `${endpoint} did not answer in time. A server that is still loading a model can be slow at first: try again in a moment.`,
        retryable: true,
        detail,
      },
    };
  const connection = connectionFailure(failureChain(error), endpoint);
  if (connection !== null) return { error: { ...connection, detail } };
  if (/Connection/.test(name) || /fetch failed/.test(chain)) {
    return {
      error: {
        code: 'model_connection_failed',
        message: `Could not connect to ${endpoint}. Check that the model server is running there and that the address is right.`,
        retryable: true,
        detail,
      },
    };
  }
  if (error instanceof SyntaxError || /JSON|Unexpected token|Could not parse/i.test(chain)) {
    return { error: { code: 'model_bad_response', message: `${endpoint} sent an answer the app could not read.`, detail } };
  }
  if (/terminated|other side closed|ECONNRESET|socket/i.test(chain)) {
    return {
      error: {
        code: 'model_stream_interrupted',
        message: `The connection to ${endpoint} dropped in the middle of the answer: the server closed it, or stopped. Try again.`,
        retryable: true,
        detail,
      },
    };
  }
  return { error: { code: 'model_bad_response', message: `${endpoint} failed: ${causeChain(error, false)}`, detail } };
}

/** The same classification as a `ModelError` to throw, for calls that answer with a value rather than a stream. */
export function toModelError(error: unknown, endpoint: string, signal: AbortSignal): ModelError {
  const classified = classifyProviderError(error, endpoint, signal);
  const { code, message, retryable, detail } = classified.error;
  return new ModelError(code, message, { retryable: retryable ?? false, ...(detail === undefined ? {} : { detail }) });
}

/**
 * Links the caller's signal to an inner controller and aborts it when no chunk arrives for
 * `idleMs`, so a stalled server ends in a clear timeout instead of hanging the turn.
 */
export class IdleWatchdog {
  readonly controller = new AbortController();
  private timer: ReturnType<typeof setTimeout> | null = null;
  private readonly onOuterAbort: () => void;

  constructor(
    private readonly outer: AbortSignal,
    private readonly idleMs: number,
  ) {
    this.onOuterAbort = () => this.controller.abort(outer.reason);
    if (outer.aborted) this.controller.abort(outer.reason);
    else outer.addEventListener('abort', this.onOuterAbort, { once: true });
    this.touch();
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  touch(): void {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = setTimeout(() => this.controller.abort(new StreamIdleTimeout(this.idleMs)), this.idleMs);
  }

  dispose(): void {
    if (this.timer !== null) clearTimeout(this.timer);
    this.outer.removeEventListener('abort', this.onOuterAbort);
  }
}
