/*
 * The context sequences of the loaded model, one per line of requests (a request's cache key), so each line's next
 * request reads only what was added to its prompt since the last one.
 */

import { freemem, totalmem } from 'node:os';
import { LlamaChat, type ChatWrapper, type LlamaContext, type LlamaModel } from 'node-llama-cpp';

export interface SequencePoolOptions {
  readonly model: LlamaModel;
  /** The window of each sequence, in tokens. */
  readonly contextSize: number;
  readonly wrapper: ChatWrapper;
  /** The most sequences kept at once, memory allowing; at least one. */
  readonly maxSequences: number;
  readonly threads?: number;
}

/** A sequence, the chat that evaluates on it, and the line of requests it holds the prompt of (none yet: null). */
interface Slot {
  readonly context: LlamaContext;
  readonly chat: LlamaChat;
  line: { readonly key: string | undefined } | null;
  usedAt: number;
}

/**
 * The share of the machine's memory an extra sequence must leave free. The first sequence is what the model needs to
 * answer at all; the others are a cache, and a cache is not worth pushing the rest of the machine into swap.
 */
const keptFree = 1 / 8;

/**
 * One sequence per key while memory allows. Each sequence has a context of its own, created when a new key first needs
 * one: generations run one at a time, so a context of several sequences would gain no parallel work and would take the
 * memory of all of them up front, used or not. A request with a key no sequence holds, when no other sequence may be
 * made, takes over the sequence used longest ago: that key's cached prompt is lost, and the next request of that key
 * reads its prompt again. node-llama-cpp's chat keeps whatever beginning the sequence holds that the new prompt starts
 * with (`adaptStateToTokens`), and erases the rest before it reads on. Requests without a key are a line of their own.
 */
export class SequencePool {
  private readonly slots: Slot[] = [];
  private clock = 0;
  /** An extra context failed to be made: no more are tried while this model stays loaded. */
  private full = false;

  private constructor(private readonly options: SequencePoolOptions) {}

  /** Makes the first sequence; throws what node-llama-cpp threw when its context cannot be made. */
  static async open(options: SequencePoolOptions, signal: AbortSignal): Promise<SequencePool> {
    const pool = new SequencePool(options);
    pool.slots.push(await pool.newSlot(signal));
    return pool;
  }

  /** The chat whose sequence holds `key`'s prompt, or one taken over for it. */
  async chatFor(key: string | undefined, signal: AbortSignal): Promise<LlamaChat> {
    const slot = this.slots.find((candidate) => candidate.line !== null && candidate.line.key === key) ?? (await this.freeSlot(signal));
    slot.line = { key };
    slot.usedAt = ++this.clock;
    return slot.chat;
  }

  async dispose(): Promise<void> {
    const slots = this.slots.splice(0);
    for (const slot of slots) {
      slot.chat.dispose();
      await slot.context.dispose();
    }
  }

  private async freeSlot(signal: AbortSignal): Promise<Slot> {
    const unclaimed = this.slots.find((slot) => slot.line === null);
    if (unclaimed) return unclaimed;
    if (this.slots.length < this.options.maxSequences && !this.full && (await this.roomForAnother())) {
      try {
        const slot = await this.newSlot(signal);
        this.slots.push(slot);
        return slot;
      } catch (error) {
        if (signal.aborted) throw error;
        // node-llama-cpp found too little memory after all (its own estimate, or llama.cpp failing to allocate).
        this.full = true;
      }
    }
    return this.slots.reduce((oldest, slot) => (slot.usedAt < oldest.usedAt ? slot : oldest));
  }

  /** Whether another context like the first fits with the share of memory kept free. */
  private async roomForAnother(): Promise<boolean> {
    const first = this.slots[0];
    if (!first) return true;
    // The first context's own footprint is what another of the same window needs.
    const needs = first.context.memoryUsage;
    if (freemem() - needs.ram < totalmem() * keptFree) return false;
    if (needs.vram === 0) return true;
    const vram = await this.options.model.llama.getVramState();
    return vram.free - needs.vram >= vram.total * keptFree;
  }

  private async newSlot(signal: AbortSignal): Promise<Slot> {
    const { model, contextSize, threads, wrapper } = this.options;
    const context = await model.createContext({
      contextSize,
      createSignal: signal,
      ...(threads === undefined ? {} : { threads }),
    });
    const chat = new LlamaChat({ contextSequence: context.getSequence(), chatWrapper: wrapper });
    return { context, chat, line: null, usedAt: 0 };
  }
}
