/*
 * Uses a llama.cpp server's prompt cache: the fields that ask it to keep prompts, each line of requests in a slot of its
 * own, learned from its `/props` once per server.
 */

import { APIError } from 'openai';
import { z } from 'zod';
import type { ModelRequest } from '../agent/ports/model-provider';
import { SlotAssignment } from './llama-cpp-slots';
import { requestJson, type RouteAnswer, type RouteContext } from './server-routes';

/**
 * llama.cpp's `GET /props`: `total_slots` is `--parallel`, the number of slots (tools/server/server-context.cpp, the
 * props route); `default_generation_settings` tells llama-server apart from other servers with a `/props`. A slot count
 * that is not a sane whole number is read as one slot.
 */
const propsSchema = z.object({
  default_generation_settings: z.record(z.string(), z.unknown()),
  total_slots: z.number().int().positive().max(4096).optional().catch(undefined),
});

/** The fields a request to llama-server carries beside OpenAI's. */
export interface CacheFields {
  /**
   * Keep the evaluated prompt in the slot and reuse its beginning next time: current builds' default (common.h), sent for
   * older ones, which read a missing field as false.
   */
  readonly cache_prompt?: boolean;
  /** The slot to run in. */
  readonly id_slot?: number;
}

/** The fields for one request, and the call that says the request is over. */
export interface CacheUse {
  readonly fields: CacheFields;
  end(): void;
}

/** What `/props` said about the server: whether it is llama-server, and how many slots it has. */
interface ServerFacts {
  readonly llamaCpp: boolean;
  readonly slots: number;
}

const unknownServer: ServerFacts = { llamaCpp: false, slots: 1 };
const nothing: CacheUse = { fields: {}, end: () => undefined };

/**
 * Reads `/props` once per server and gives each request the fields that use llama-server's prompt cache: `cache_prompt`,
 * and on a server of several slots `id_slot` for a request that names its line (`cacheKey`), from a `SlotAssignment`.
 * A server that is not llama-server gets no field at all: a strict server refuses fields it does not know.
 *
 * A request must never fail for these fields. llama-server itself never refuses `id_slot`: a busy slot makes the request
 * wait for it, and an id past the last slot wraps around in current builds, or waits for good in builds before the wrap
 * (server-context.cpp, `get_slot_by_id` and `process_single_task`), so only ids below `total_slots` are sent and the
 * count is read again after the server went away (it may come back with fewer slots). A server or proxy in front of it
 * that refuses the fields with a 400 or 422 naming one of them is remembered, and the provider sends the request again
 * without them (see `refused`).
 */
export class LlamaCppPromptCache {
  private facts: Promise<ServerFacts | null> | null = null;
  private assignment: SlotAssignment | null = null;
  /** The server refused the fields once: none is sent to it again. */
  private fieldsRefused = false;

  constructor(private readonly routes: RouteContext) {}

  /** The fields for `request`, once what the server is is known; none while that cannot be learned. */
  async use(request: ModelRequest, signal: AbortSignal): Promise<CacheUse> {
    if (this.fieldsRefused) return nothing;
    const facts = await this.learn(signal);
    if (!facts?.llamaCpp) return nothing;
    const assignment = this.slotsFor(facts.slots);
    if (!assignment || request.cacheKey === undefined) return { fields: { cache_prompt: true }, end: () => undefined };
    const slot = assignment.slotFor(request.cacheKey);
    assignment.started(slot);
    let ended = false;
    return {
      fields: { cache_prompt: true, id_slot: slot },
      end: () => {
        if (ended) return;
        ended = true;
        assignment.ended(slot);
      },
    };
  }

  /**
   * Whether `error` is the server refusing the fields this cache adds: a 400 or 422 whose body names `id_slot` or
   * `cache_prompt`. If so the server is remembered as one that takes none, and the caller sends the request without them.
   */
  refused(error: unknown): boolean {
    if (!(error instanceof APIError) || (error.status !== 400 && error.status !== 422)) return false;
    const said = `${error.message} ${error.param ?? ''} ${JSON.stringify(error.error ?? null)}`;
    if (!/\b(id_slot|cache_prompt)\b/.test(said)) return false;
    this.fieldsRefused = true;
    return true;
  }

  /** The server could not be reached: it may come back as another server, or with another number of slots. */
  forget(): void {
    this.facts = null;
    this.assignment = null;
  }

  /** The slots' assignment for a server of `slots` slots; none for one slot, where there is nothing to choose. */
  private slotsFor(slots: number): SlotAssignment | null {
    if (slots < 2) return null;
    if (this.assignment?.total !== slots) this.assignment = new SlotAssignment(slots);
    return this.assignment;
  }

  /** What the server is: asked once, and asked again only after an answer that said nothing yet. */
  private learn(signal: AbortSignal): Promise<ServerFacts | null> {
    if (this.facts) return this.facts;
    const facts = requestJson(`${this.routes.root}/props`, this.routes, signal).then((answer) => factsOf(answer, signal));
    this.facts = facts;
    void facts.then((found) => {
      if (found === null && this.facts === facts) this.facts = null;
    });
    return facts;
  }
}

/**
 * What an answer to `/props` says about the server for good, or null when it says nothing yet. A JSON answer, a refusal
 * of the request (4xx: no such route) or a page that is not JSON say what the server is. A server still loading (503) or
 * failing (5xx), nothing listening, or a cancel say nothing: the next request asks again. A `/props` that does not answer
 * in time is taken as "not llama-server" for good, so a server whose `/props` hangs does not hold every request up.
 */
function factsOf(answer: RouteAnswer, signal: AbortSignal): ServerFacts | null {
  switch (answer.kind) {
    case 'json': {
      const parsed = propsSchema.safeParse(answer.body);
      return parsed.success ? { llamaCpp: true, slots: parsed.data.total_slots ?? 1 } : unknownServer;
    }
    case 'refused':
      return answer.status >= 500 ? null : unknownServer;
    case 'garbage':
      return unknownServer;
    case 'failed':
      return answer.signal.aborted && !signal.aborted ? unknownServer : null;
  }
}
