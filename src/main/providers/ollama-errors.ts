/*
 * Ollama's failures, with an HTTP status or in the middle of a stream, turned into the app's error codes.
 */

import { overflowFrom } from './context-overflow';
import { classifyProviderError, type ClassifiedError } from './provider-errors';

/**
 * An error Ollama reported: with the HTTP status of a failed request, or without one for an `{"error": ...}` line
 * inside a stream that had begun. Shaped as the SDKs' errors are (`status`, `headers`, and the body's `error` as
 * `error`), so the shared classification reads it the same way, including an error body of llama-server's that
 * Ollama passes on as text.
 */
export class OllamaServerError extends Error {
  constructor(
    readonly error: string,
    readonly status?: number,
    readonly headers?: Headers,
  ) {
    super(error);
    this.name = 'OllamaServerError';
  }
}

/**
 * Ollama's failures as the app's error codes: as for the other providers (a prompt that does not fit, connection
 * refused, 404 for an unknown model, 5xx, timeouts, cancellation), except that an error line in the middle of a stream
 * is the server failing, as Ollama itself would have answered 500 had nothing been streamed yet.
 */
export function classifyOllamaError(error: unknown, endpoint: string, signal: AbortSignal): ClassifiedError {
  if (!signal.aborted && error instanceof OllamaServerError && error.status === undefined && overflowFrom(error.error) === null)
    return { error: { code: 'model_server_error', message: `${endpoint} failed mid-answer: ${error.error}`, retryable: true } };
  return classifyProviderError(error, endpoint, signal);
}
