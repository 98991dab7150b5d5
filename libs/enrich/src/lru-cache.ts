/**
 * A bounded least-recently-used cache. A Map keeps insertion order, so deleting and
 * re-setting a key on every hit moves it to the end and the first key is always the
 * least recently used one: O(1) get/set with no linked list to maintain.
 *
 * Bounded because the keys (user agents, IPs) come from the network: an unbounded cache
 * is a memory leak that any client can drive.
 */
export class LruCache<K, V> {
  readonly #entries = new Map<K, V>();
  readonly #capacity: number;
  /**
   * The eviction cursor: one live iterator over the keys, kept from one eviction to the next.
   * A fresh `keys().next()` at every eviction starts from the table's first slot and steps over
   * every slot deleted since V8 last compacted the table: with 200,000 entries that cost about
   * 100 µs a set once the cache was full, a third of the one-process pipeline's time in a 60 s
   * run (issue 14). Everything before the cursor has been evicted, and a key that is read moves
   * to the end, so the cursor always meets keys in least-recently-used order.
   */
  #cursor: Iterator<K> | null = null;
  /** The key last set or moved to the end. */
  #newest: K | undefined;

  constructor(capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1) {
      throw new RangeError(`LRU capacity must be a positive integer, got ${capacity}`);
    }
    this.#capacity = capacity;
  }

  get size(): number {
    return this.#entries.size;
  }

  get capacity(): number {
    return this.#capacity;
  }

  get(key: K): V | undefined {
    const value = this.#entries.get(key);
    // The most recent key is already last: a run of one visitor's events moves nothing.
    if (value !== undefined && key !== this.#newest) {
      this.#newest = key;
      this.#entries.delete(key);
      this.#entries.set(key, value);
    }
    return value;
  }

  set(key: K, value: V): void {
    this.#entries.delete(key);
    this.#entries.set(key, value);
    this.#newest = key;
    if (this.#entries.size > this.#capacity) {
      let oldest = (this.#cursor ??= this.#entries.keys()).next();
      if (oldest.done) {
        // Not expected while entries remain after it; a finished iterator stays finished.
        this.#cursor = this.#entries.keys();
        oldest = this.#cursor.next();
      }
      if (!oldest.done) this.#entries.delete(oldest.value);
    }
  }
}
