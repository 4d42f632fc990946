/*
 * A fetch wrapper that hands the OpenAI SDK a flat error body, as older vLLM sent, in the nested shape it reads.
 */

/**
 * Wraps fetch so an error body the OpenAI SDK cannot read reaches it in the shape it can.
 *
 * vLLM answered errors with a flat body, `{"object": "error", "message": "…", "type": "BadRequestError",
 * "code": 400}`, until it adopted OpenAI's `{"error": {…}}` (vllm/entrypoints/openai/protocol.py,
 * `ErrorResponse`, before and after). The SDK reads only `error`, so from a flat body it kept
 * "400 status code (no body)" and lost the message, the one place such a server says that a
 * prompt did not fit its window. Every other response passes through untouched.
 */
export function withNestedErrorBody(fetchImpl: typeof fetch): typeof fetch {
  return async (input, init) => {
    const response = await fetchImpl(input, init);
    if (response.ok || !(response.headers.get('content-type') ?? '').includes('json')) return response;
    let body: unknown;
    try {
      body = JSON.parse(await response.clone().text());
    } catch {
      return response;
    }
    if (!isFlatError(body)) return response;
    const headers = new Headers(response.headers);
    headers.delete('content-length');
    return new Response(JSON.stringify({ error: body }), { status: response.status, statusText: response.statusText, headers });
  };
}

function isFlatError(body: unknown): boolean {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return false;
  const fields = body as { error?: unknown; message?: unknown };
  return fields.error === undefined && typeof fields.message === 'string';
}
