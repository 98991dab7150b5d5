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
    if (value !== undefined) {
      this.#entries.delete(key);
      this.#entries.set(key, value);
    }
    return value;
  }

  set(key: K, value: V): void {
    this.#entries.delete(key);
    this.#entries.set(key, value);
    if (this.#entries.size > this.#capacity) {
      // The iterator's first key is the least recently used one.
      const oldest = this.#entries.keys().next();
      if (!oldest.done) this.#entries.delete(oldest.value);
    }
  }
}
