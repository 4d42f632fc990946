/*
 * Requests to the routes a model server has beside the OpenAI ones (llama.cpp's `/props` and `/tokenize`, LM Studio's
 * model lists), each within a timeout.
 */

import { withDeadline } from '../../shared/deadline';

/** How the provider reaches a server's routes beside the OpenAI ones. */
export interface RouteContext {
  /** The server's root: the base URL without its `/v1`. */
  readonly root: string;
  readonly fetch: typeof fetch;
  readonly headers: Readonly<Record<string, string>>;
  /** Longest wait for one route, body included. */
  readonly timeoutMs: number;
}

/**
 * What one route answered: JSON; a refusal (a status other than 2xx, with its body); a 2xx that is
 * not JSON (an HTML page, garbage); or no answer at all, with the signal that tells a timeout from a
 * cancel.
 */
export type RouteAnswer =
  | { readonly kind: 'json'; readonly body: unknown }
  | { readonly kind: 'refused'; readonly status: number; readonly text: string }
  | { readonly kind: 'garbage'; readonly text: string }
  | { readonly kind: 'failed'; readonly error: unknown; readonly signal: AbortSignal };

/** The server's root: `http://host:8080/v1/` and `http://host:8080/v1` both give `http://host:8080`. */
export function serverRoot(baseUrl: string): string {
  return baseUrl.replace(/\/+$/, '').replace(/\/v1$/, '');
}

/** The caller's signal, cut short after `ms`: a route that hangs ends in a timeout, never a wait. */
export function withTimeout(signal: AbortSignal, ms: number): AbortSignal {
  return withDeadline(signal, ms);
}

/** Sends one request and reads its JSON, within the context's timeout. Never throws. */
export async function requestJson(
  url: string,
  context: RouteContext,
  signal: AbortSignal,
  init: { method?: string; body?: unknown } = {},
): Promise<RouteAnswer> {
  const bounded = withTimeout(signal, context.timeoutMs);
  try {
    const response = await context.fetch(url, {
      method: init.method ?? 'GET',
      headers: {
        accept: 'application/json',
        ...(init.body === undefined ? {} : { 'content-type': 'application/json' }),
        ...context.headers,
      },
      ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
      signal: bounded,
    });
    const text = await response.text();
    if (!response.ok) return { kind: 'refused', status: response.status, text };
    try {
      return { kind: 'json', body: JSON.parse(text) as unknown };
    } catch {
      return { kind: 'garbage', text };
    }
  } catch (error) {
    return { kind: 'failed', error, signal: bounded };
  }
}
