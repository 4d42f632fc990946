/*
 * llama.cpp's `GET /props`, read once per server and shared by what a provider learns from it: the prompt cache's slots
 * and the chat template's think block.
 */

import { z } from 'zod';
import { requestJson, type RouteAnswer, type RouteContext } from './server-routes';

/**
 * llama.cpp's `GET /props` (tools/server/server-context.cpp, the props route): `default_generation_settings` tells
 * llama-server apart from other servers with a `/props`. The other fields are kept as they came, for each reader to
 * check the ones it uses.
 */
const propsSchema = z.looseObject({ default_generation_settings: z.record(z.string(), z.unknown()) });

/** A llama-server's answer to `/props`: its `default_generation_settings`, and every other field unchecked. */
export type LlamaCppPropsAnswer = z.infer<typeof propsSchema>;

/**
 * What the server's `/props` said for good: its answer when it is llama-server, `notLlamaCpp` when it is another server.
 * Null: it said nothing yet, and the next reader asks again.
 */
type Known = LlamaCppPropsAnswer | typeof notLlamaCpp | null;

const notLlamaCpp = 'not llama-server';

/**
 * One server's `/props`, asked once and remembered for everyone who reads it, so that a request asks it at most once
 * however many things it wants to know. Forgotten when the server could not be reached (`forget`): it may come back as
 * another server, with other slots or another model.
 */
export class LlamaCppProps {
  private known: Promise<Known> | null = null;

  constructor(private readonly routes: RouteContext) {}

  /** The server's answer when it is llama-server; null when it is not, or when that cannot be learned now. Never throws. */
  async read(signal: AbortSignal): Promise<LlamaCppPropsAnswer | null> {
    const known = await this.learn(signal);
    return known === notLlamaCpp ? null : known;
  }

  /** The server could not be reached: the next reader asks again. */
  forget(): void {
    this.known = null;
  }

  /** What the server is: asked once, and asked again only after an answer that said nothing yet. */
  private learn(signal: AbortSignal): Promise<Known> {
    if (this.known) return this.known;
    const known = requestJson(`${this.routes.root}/props`, this.routes, signal).then((answer) => knownFrom(answer, signal));
    this.known = known;
    void known.then((found) => {
      if (found === null && this.known === known) this.known = null;
    });
    return known;
  }
}

/**
 * What an answer to `/props` says about the server for good, or null when it says nothing yet. A JSON answer, a refusal
 * of the request (4xx: no such route) or a page that is not JSON say what the server is. A server still loading (503) or
 * failing (5xx), nothing listening, or a cancel say nothing: the next reader asks again. A `/props` that does not answer
 * in time is taken as "not llama-server" for good, so a server whose `/props` hangs does not hold every request up.
 */
function knownFrom(answer: RouteAnswer, signal: AbortSignal): Known {
  switch (answer.kind) {
    case 'json': {
      const parsed = propsSchema.safeParse(answer.body);
      return parsed.success ? parsed.data : notLlamaCpp;
    }
    case 'refused':
      return answer.status >= 500 ? null : notLlamaCpp;
    case 'garbage':
      return notLlamaCpp;
    case 'failed':
      return answer.signal.aborted && !signal.aborted ? notLlamaCpp : null;
  }
}
