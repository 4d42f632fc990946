import type { ServerResponse } from 'node:http';
import { tokenize, type CountedMessage } from './tokens';

/**
 * llama-server's slots and prompt cache, as the scripted server's llama.cpp personality keeps them.
 *
 * What is imitated, from ggml-org/llama.cpp tools/server (server-context.cpp, server-task.cpp):
 * - `/props` reports `total_slots` (`--parallel`); one slot unless configured.
 * - Each slot remembers the prompt it last evaluated. A request reuses the longest beginning its prompt shares with its
 *   slot's (`n_past`, `get_common_prefix`), unless it sends `cache_prompt: false`; a prompt that is all cached still has
 *   its last token read again (`[TAG_PROMPT_LOGITS]`: "need to evaluate at least 1 token").
 * - `id_slot` (an integer of 0 or more) pins the request to that slot, wrapped around past the last one as current builds
 *   do (`get_slot_by_id`); a request pinned to a busy slot waits until it is free (`queue_tasks.defer`). Any other value
 *   leaves the request unpinned.
 * - An unpinned request takes the free slot whose prompt shares the largest part of the new prompt, when that part is
 *   more than `--slot-prompt-similarity` (0.1), else the free slot released longest ago, the highest-numbered one among
 *   slots never used (`get_available_slot` compares with `<=`); with no free slot it waits for one.
 * - The final chunk carries `timings` with `cache_n` (tokens taken from the slot) and `prompt_n` (tokens read now), and
 *   its usage `prompt_tokens_details.cached_tokens` (= `cache_n`), as current builds write it.
 *
 * What a token is here: the prompt as `promptPieces` renders it, in the scripted tokenizer's pieces (tokens.ts), so
 * `cache_n + prompt_n` is exactly the request's `promptTokens`. A slot remembers the prompt only: real llama-server also
 * keeps the tokens it generated, so when the next prompt repeats the answer word for word its reuse is larger by about
 * the answer's length; here the answer's tokens, re-sent as an assistant message, count as read again.
 */
export interface LlamaSlotOptions {
  /** `total_slots`, as `--parallel`. Default 1. */
  readonly total?: number;
  /**
   * What the server does with `id_slot`: pins the request (`pin`, llama-server, the default); ignores it, as an older or
   * different server does (`ignore`); or refuses the request with a 400 naming the field, as a strict server or proxy
   * does with arguments it does not know (`reject`).
   */
  readonly idSlot?: 'pin' | 'ignore' | 'reject';
  /** `--slot-prompt-similarity`: the share of the prompt a free slot must already hold to be chosen for it. Default 0.1; 0 turns it off. */
  readonly promptSimilarity?: number;
}

/** Which slot a request ran in and what its `timings` reported. */
export interface LlamaSlotUse {
  readonly slot: number;
  /** `id_slot` chose the slot. */
  readonly pinned: boolean;
  /** Prompt tokens taken from the slot's cache: `timings.cache_n`. */
  readonly cacheN: number;
  /** Prompt tokens read now: `timings.prompt_n`. `cacheN + promptN` is the request's `promptTokens`. */
  readonly promptN: number;
}

interface Slot {
  /** The pieces of the last prompt evaluated here. */
  memory: readonly string[];
  busy: boolean;
  /** When it was last released, on the slots' own clock; -1 when never used. */
  lastUsed: number;
}

interface Waiting {
  readonly body: Record<string, unknown>;
  readonly pieces: readonly string[];
  readonly resolve: (lease: Lease) => void;
}

interface Lease {
  readonly use: LlamaSlotUse;
  release(): void;
}

/** The role markers a chat template wraps each message in; four per message, as tokens.ts counts them. */
const marker = {
  start: '<|im_start|>',
  role: (role: unknown): string => `<|role:${String(role)}|>`,
  separator: '<|im_sep|>',
  end: '<|im_end|>',
};

function append(pieces: string[], text: string): void {
  for (const piece of tokenize(text)) pieces.push(piece);
}

/**
 * The prompt of an OpenAI chat request as the server's tokens, in order: the tool definitions first (templates put them in
 * the system part), then per message its four markers around its text and tool calls. Counted exactly as
 * `countPromptTokens` counts the same request, so its length is the request's `promptTokens`.
 */
export function promptPieces(body: Record<string, unknown>): string[] {
  const pieces: string[] = [];
  const tools = body['tools'];
  if (Array.isArray(tools) && tools.length > 0) append(pieces, JSON.stringify(tools));
  const messages = Array.isArray(body['messages']) ? (body['messages'] as CountedMessage[]) : [];
  for (const message of messages) {
    pieces.push(marker.start, marker.role(message.role), marker.separator);
    append(pieces, typeof message.content === 'string' ? message.content : JSON.stringify(message.content ?? ''));
    if (message.tool_calls !== undefined) append(pieces, JSON.stringify(message.tool_calls));
    pieces.push(marker.end);
  }
  return pieces;
}

function commonPrefix(a: readonly string[], b: readonly string[]): number {
  const length = Math.min(a.length, b.length);
  let at = 0;
  while (at < length && a[at] === b[at]) at += 1;
  return at;
}

/** llama-server's slots: which one a request takes, what it reuses, and the `timings` it reports. */
export class LlamaSlots {
  private readonly slots: Slot[];
  private readonly waiting: Waiting[] = [];
  private readonly idSlot: 'pin' | 'ignore' | 'reject';
  private readonly similarity: number;
  private clock = 0;

  constructor(options: LlamaSlotOptions = {}) {
    const total = options.total ?? 1;
    if (!Number.isInteger(total) || total < 1) throw new RangeError(`total_slots must be a whole number of 1 or more, not ${total}`);
    this.slots = Array.from({ length: total }, () => ({ memory: [], busy: false, lastUsed: -1 }));
    this.idSlot = options.idSlot ?? 'pin';
    this.similarity = options.promptSimilarity ?? 0.1;
  }

  get total(): number {
    return this.slots.length;
  }

  /** The 400 a server that refuses `id_slot` answers, or null when it takes the request. */
  refusal(body: Record<string, unknown>): { readonly status: number; readonly body: unknown } | null {
    if (this.idSlot !== 'reject' || !('id_slot' in body)) return null;
    return {
      status: 400,
      body: {
        error: { code: 400, message: 'Unrecognized request argument supplied: id_slot', type: 'invalid_request_error', param: 'id_slot' },
      },
    };
  }

  /**
   * Takes a slot for a request, waiting as llama-server does while none it may use is free, and gives it back when the
   * exchange closes. Null when the client went away while the request waited.
   */
  async take(body: Record<string, unknown>, response: ServerResponse): Promise<LlamaSlotUse | null> {
    // A client that went away before the slot was asked for (its socket is gone) is not waited for either.
    let closed = response.destroyed || response.socket?.destroyed !== false;
    response.once('close', () => {
      closed = true;
    });
    const lease = await new Promise<Lease>((resolve) => {
      this.waiting.push({ body, pieces: promptPieces(body), resolve });
      this.place();
    });
    if (closed) lease.release();
    else response.once('close', () => lease.release());
    return closed ? null : lease.use;
  }

  /** Forgets every slot's prompt, for the next test. Requests still running keep their slots until they end. */
  reset(): void {
    for (const slot of this.slots) {
      slot.memory = [];
      slot.lastUsed = -1;
    }
    this.clock = 0;
  }

  /** Starts every waiting request that now has a slot, first come first served. */
  private place(): void {
    for (let index = 0; index < this.waiting.length;) {
      const waiting = this.waiting[index];
      const chosen = waiting ? this.choose(waiting) : null;
      if (!waiting || chosen === null) {
        index += 1;
        continue;
      }
      this.waiting.splice(index, 1);
      waiting.resolve(this.start(chosen.slot, chosen.pinned, waiting.pieces, waiting.body['cache_prompt'] !== false));
    }
  }

  /** The slot a request goes to now, or null when it must wait. */
  private choose(waiting: Waiting): { slot: number; pinned: boolean } | null {
    const pinned = this.pinned(waiting.body);
    if (pinned !== null) return this.slots[pinned]?.busy ? null : { slot: pinned, pinned: true };
    const free = this.slots.map((slot, id) => ({ slot, id })).filter(({ slot }) => !slot.busy);
    if (free.length === 0) return null;
    if (this.similarity > 0 && waiting.pieces.length > 0) {
      let best: { id: number; share: number } | null = null;
      for (const { slot, id } of free) {
        if (slot.memory.length === 0) continue;
        const share = commonPrefix(slot.memory, waiting.pieces) / waiting.pieces.length;
        if (share > this.similarity && share > (best?.share ?? 0)) best = { id, share };
      }
      if (best) return { slot: best.id, pinned: false };
    }
    let oldest = free[0]!;
    for (const candidate of free) if (candidate.slot.lastUsed <= oldest.slot.lastUsed) oldest = candidate;
    return { slot: oldest.id, pinned: false };
  }

  /** The slot `id_slot` names, when the server honours it and the value is a slot number. */
  private pinned(body: Record<string, unknown>): number | null {
    const id = body['id_slot'];
    if (this.idSlot !== 'pin' || typeof id !== 'number' || !Number.isInteger(id) || id < 0) return null;
    return id % this.slots.length;
  }

  private start(id: number, pinned: boolean, pieces: readonly string[], cachePrompt: boolean): Lease {
    const slot = this.slots[id]!;
    let cacheN = cachePrompt ? commonPrefix(slot.memory, pieces) : 0;
    if (cacheN === pieces.length && cacheN > 0) cacheN -= 1;
    slot.memory = pieces;
    slot.busy = true;
    let released = false;
    return {
      use: { slot: id, pinned, cacheN, promptN: pieces.length - cacheN },
      release: () => {
        if (released) return;
        released = true;
        slot.busy = false;
        this.clock += 1;
        slot.lastUsed = this.clock;
        this.place();
      },
    };
  }
}

const sseData = /^data: (\{.*\})\n\n$/s;

/**
 * The frames of a stream with llama-server's `timings` on its last chunk (the usage chunk when usage was asked for, else
 * the finish chunk) and `prompt_tokens_details.cached_tokens` in its usage. The `*_ms` figures are nominal (a millisecond
 * per prompt token, twenty per answer token): only the counts mean anything.
 */
export function withTimings(frames: readonly string[], use: LlamaSlotUse, predicted: number): string[] {
  const last = frames.findLastIndex((frame) => sseData.test(frame));
  if (last < 0) return [...frames];
  const chunk = JSON.parse(sseData.exec(frames[last]!)![1]!) as Record<string, unknown>;
  const usage = chunk['usage'];
  if (usage && typeof usage === 'object') chunk['usage'] = { ...usage, prompt_tokens_details: { cached_tokens: use.cacheN } };
  const promptMs = Math.max(1, use.promptN);
  const predictedMs = Math.max(1, predicted * 20);
  chunk['timings'] = {
    cache_n: use.cacheN,
    prompt_n: use.promptN,
    prompt_ms: promptMs,
    prompt_per_token_ms: promptMs / Math.max(1, use.promptN),
    prompt_per_second: (use.promptN * 1000) / promptMs,
    predicted_n: predicted,
    predicted_ms: predictedMs,
    predicted_per_token_ms: predictedMs / Math.max(1, predicted),
    predicted_per_second: (predicted * 1000) / predictedMs,
  };
  return frames.map((frame, index) => (index === last ? `data: ${JSON.stringify(chunk)}\n\n` : frame));
}
