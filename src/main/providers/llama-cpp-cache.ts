/*
 * Uses a llama.cpp server's prompt cache: the fields that ask it to keep prompts, each line of requests in a slot of its
 * own, learned from its `/props` (read once per server, see `LlamaCppProps`).
 */

import { APIError } from 'openai';
import { z } from 'zod';
import type { ModelRequest } from '../agent/ports/model-provider';
import type { LlamaCppProps, LlamaCppPropsAnswer } from './llama-cpp-props';
import { SlotAssignment } from './llama-cpp-slots';

/**
 * llama.cpp's `GET /props`: `total_slots` is `--parallel`, the number of slots (tools/server/server-context.cpp, the
 * props route). A slot count that is not a sane whole number is read as one slot.
 */
const slotsSchema = z.object({ total_slots: z.number().int().positive().max(4096).optional().catch(undefined) });

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

const nothing: CacheUse = { fields: {}, end: () => undefined };

/**
 * Gives each request the fields that use llama-server's prompt cache: `cache_prompt`, and on a server of several slots
 * `id_slot` for a request that names its line (`cacheKey`), from a `SlotAssignment`. A server that is not llama-server
 * gets no field at all: a strict server refuses fields it does not know.
 *
 * A request must never fail for these fields. llama-server itself never refuses `id_slot`: a busy slot makes the request
 * wait for it, and an id past the last slot wraps around in current builds, or waits for good in builds before the wrap
 * (server-context.cpp, `get_slot_by_id` and `process_single_task`), so only ids below `total_slots` are sent, and the
 * slots are assigned afresh from `/props` read again after the server went away (it may come back with fewer). A server
 * or proxy in front of it that refuses the fields with a 400 or 422 naming one of them is remembered, and the provider
 * sends the request again without them (see `refused`).
 */
export class LlamaCppPromptCache {
  /** The slots' assignment, and the answer of `/props` it was made from. */
  private assignment: { readonly props: LlamaCppPropsAnswer; readonly slots: SlotAssignment | null } | null = null;
  /** The server refused the fields once: none is sent to it again. */
  private fieldsRefused = false;

  constructor(private readonly props: LlamaCppProps) {}

  /** llama-server's slots (`total_slots`, one when it does not say); null for another server, or while that is not known. */
  async slots(signal: AbortSignal): Promise<number | null> {
    const props = await this.props.read(signal);
    return props ? (slotsSchema.safeParse(props).data?.total_slots ?? 1) : null;
  }

  /** The fields for `request`, once what the server is is known; none while that cannot be learned. */
  async use(request: ModelRequest, signal: AbortSignal): Promise<CacheUse> {
    if (this.fieldsRefused) return nothing;
    const props = await this.props.read(signal);
    if (!props) return nothing;
    const assignment = this.slotsFor(props);
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

  /**
   * The slots' assignment for the server that gave `props`; none for one slot, where there is nothing to choose. An answer
   * read again (after the server could not be reached) starts a new assignment: the server may be back with other slots.
   */
  private slotsFor(props: LlamaCppPropsAnswer): SlotAssignment | null {
    if (this.assignment?.props !== props) {
      const slots = slotsSchema.safeParse(props).data?.total_slots ?? 1;
      this.assignment = { props, slots: slots < 2 ? null : new SlotAssignment(slots) };
    }
    return this.assignment.slots;
  }
}
