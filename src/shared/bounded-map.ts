/**
 * A Map with a maximum size that drops its oldest entry to make room: the one shape of every bounded cache the app
 * keeps in memory (clients per endpoint, windows per model, open folders, files read), so none can grow without end.
 */

export interface BoundedMapOptions<K, V> {
  /** The most entries kept: a whole number, at least 1. */
  readonly max: number;
  /**
   * Whether `get` makes the entry it finds the newest, so the entry least recently used goes first (a cache of things
   * in use, such as open folders). Without it, reads change nothing and the entry least recently set goes first.
   */
  readonly refreshOnRead?: boolean;
  /**
   * Told of each entry dropped to make room, after the new one is in: where a value holds a resource (a descriptor),
   * this is where it is let go. Not called for `delete`, `clear`, or a value replaced by setting its key again: the
   * caller holds those values already.
   */
  readonly onEvict?: (key: K, value: V) => void;
}

/**
 * A map of at most `max` entries, oldest first. Setting a key, new or known, makes it the newest; setting a new key
 * when full drops the oldest entry. `has`, `keys`, `values` and iteration never change the order.
 */
export class BoundedMap<K, V> implements Iterable<[K, V]> {
  private readonly items = new Map<K, V>();

  constructor(private readonly options: BoundedMapOptions<K, V>) {
    // A max of 0 would drop every entry as it is set, and a fraction or NaN would bound nothing a caller meant.
    if (!Number.isInteger(options.max) || options.max < 1)
      throw new RangeError(`A bounded map holds a whole number of entries, at least 1; ${options.max} was given.`);
  }

  get size(): number {
    return this.items.size;
  }

  get(key: K): V | undefined {
    if (!this.options.refreshOnRead || !this.items.has(key)) return this.items.get(key);
    const value = this.items.get(key) as V;
    this.items.delete(key);
    this.items.set(key, value);
    return value;
  }

  has(key: K): boolean {
    return this.items.has(key);
  }

  set(key: K, value: V): this {
    // Deleted first, so a key set again moves to the newest place rather than keeping the place of its first write.
    this.items.delete(key);
    this.items.set(key, value);
    if (this.items.size > this.options.max) {
      // The new entry is the newest, so with a max of at least 1 it is never the one dropped.
      const [oldestKey, oldestValue] = this.items.entries().next().value as [K, V];
      this.items.delete(oldestKey);
      this.options.onEvict?.(oldestKey, oldestValue);
    }
    return this;
  }

  delete(key: K): boolean {
    return this.items.delete(key);
  }

  clear(): void {
    this.items.clear();
  }

  keys(): MapIterator<K> {
    return this.items.keys();
  }

  values(): MapIterator<V> {
    return this.items.values();
  }

  [Symbol.iterator](): MapIterator<[K, V]> {
    return this.items.entries();
  }
}
