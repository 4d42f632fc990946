/*
 * Which of a llama.cpp server's slots each line of requests keeps its prompt in, so that lines do not evict each other.
 */

/**
 * Gives each line of requests (a request's `cacheKey`) a slot of its own on a llama.cpp server that has several.
 *
 * llama-server keeps the last evaluated prompt of each slot and reads again only what follows the beginning a new prompt
 * shares with it. A request not pinned with `id_slot` goes to the free slot whose prompt shares the most with it (when that
 * is more than `--slot-prompt-similarity`, 10 % by default), else to the free slot used longest ago
 * (tools/server/server-context.cpp, `get_available_slot`), so two sessions, or a session and its summaries, take each
 * other's slots and read their whole prompts again.
 *
 * Here a key keeps its slot while it holds it. A new key takes a slot no key holds; when every slot is held, the one used
 * longest ago, preferring one without a request of this provider running on it (the server makes a request pinned to a
 * busy slot wait for it). The key that held that slot loses it, and is placed afresh when it comes back. Only as many
 * keys as slots are remembered.
 */
export class SlotAssignment {
  /** Per slot, the key that holds it. */
  private readonly holders: (string | null)[];
  /** Per slot, when it was last given out, on the clock below. */
  private readonly lastUsed: number[];
  /** Per slot, how many requests of this provider are running on it now. */
  private readonly running: number[];
  private readonly slotOfKey = new Map<string, number>();
  /** Counts the slots given out: an order, not a time, so the choice never depends on the machine's clock. */
  private clock = 0;

  constructor(readonly total: number) {
    if (!Number.isInteger(total) || total < 1) throw new RangeError(`A server has at least one slot, not ${total}.`);
    this.holders = new Array<string | null>(total).fill(null);
    this.lastUsed = new Array<number>(total).fill(0);
    this.running = new Array<number>(total).fill(0);
  }

  /** The slot `key`'s request goes to: the one it holds, else one taken for it. Marks the slot used now. */
  slotFor(key: string): number {
    const held = this.slotOfKey.get(key);
    const slot = held ?? this.take(key);
    this.clock += 1;
    this.lastUsed[slot] = this.clock;
    return slot;
  }

  /** A request began on `slot`: while it runs, a new key prefers another slot. */
  started(slot: number): void {
    this.running[slot] = (this.running[slot] ?? 0) + 1;
  }

  /** A request on `slot` ended, however it ended. */
  ended(slot: number): void {
    this.running[slot] = Math.max(0, (this.running[slot] ?? 0) - 1);
  }

  /** The slot `key` holds, or null; for a reader that must not change the assignment. */
  heldBy(key: string): number | null {
    return this.slotOfKey.get(key) ?? null;
  }

  private take(key: string): number {
    const slot = this.free() ?? this.leastRecentlyUsed();
    const previous = this.holders[slot];
    if (previous !== null && previous !== undefined) this.slotOfKey.delete(previous);
    this.holders[slot] = key;
    this.slotOfKey.set(key, slot);
    return slot;
  }

  /** The first slot no key holds, or null. */
  private free(): number | null {
    const slot = this.holders.indexOf(null);
    return slot < 0 ? null : slot;
  }

  /** The slot used longest ago among those with nothing running, else among all. */
  private leastRecentlyUsed(): number {
    const idle = this.slots().filter((slot) => this.running[slot] === 0);
    const candidates = idle.length > 0 ? idle : this.slots();
    return candidates.reduce((best, slot) => ((this.lastUsed[slot] ?? 0) < (this.lastUsed[best] ?? 0) ? slot : best));
  }

  private slots(): number[] {
    return Array.from({ length: this.total }, (_, slot) => slot);
  }
}
