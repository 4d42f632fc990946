/*
 * Counts tokens with a llama.cpp server's own tokenizer, through its `/tokenize` route.
 */

import { z } from 'zod';
import { ModelError } from '../../shared/errors';
import { toModelError } from './provider-errors';
import { requestJson, type RouteContext } from './server-routes';

/**
 * llama.cpp's `POST /tokenize` answers `{"tokens": [...]}`: ids, or `{id, piece}` objects when
 * `with_pieces` is set (tools/server/README.md). Only the count is used.
 */
const tokenizeSchema = z.object({ tokens: z.array(z.unknown()) });

/**
 * Counts `text` with the llama.cpp server's own tokenizer, without the special tokens a prompt
 * starts with (`add_special: false`), so counts of parts add up. Fails within the context's
 * timeout with a `ModelError` that says what went wrong: a refusal with the server's words, a
 * body that is not a token list, no answer in time, or nothing listening.
 */
export async function countWithLlamaCpp(text: string, context: RouteContext, signal: AbortSignal): Promise<number> {
  const url = `${context.root}/tokenize`;
  const answer = await requestJson(url, context, signal, {
    method: 'POST',
    body: { content: text, add_special: false, with_pieces: false },
  });
  switch (answer.kind) {
    case 'failed':
      throw toModelError(answer.error, url, answer.signal);
    case 'refused':
      throw new ModelError(
        answer.status >= 500 ? 'model_server_error' : 'model_request_rejected',
        `${url} refused to count tokens (${answer.status}): ${answer.text.slice(0, 500)}`,
        { retryable: answer.status >= 500 },
      );
    case 'garbage':
      throw new ModelError('model_bad_response', `${url} answered something that is not JSON: ${answer.text.slice(0, 200)}`);
    case 'json': {
      const parsed = tokenizeSchema.safeParse(answer.body);
      if (!parsed.success) throw new ModelError('model_bad_response', `${url} answered without a token list.`);
      return parsed.data.tokens.length;
    }
  }
}
