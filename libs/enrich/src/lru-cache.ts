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

/**
 * Longer keys are answered but not remembered: the inputs come from the network, and 10,000
 * remembered 10 KB junk strings would pin ~100 MB (the user-agent cache refuses the same).
 */
export const MAX_MEMO_KEY_LENGTH = 1024;

/**
 * A pure function of strings, remembered in a bounded LRU (issue 14: the enrichment steps). The
 * key joins the inputs with a NUL, which no URL, IP, user agent or project id carries
 * unescaped, so two different input tuples never share a key. The previous call's answer is
 * checked first (a batch holds runs of one visitor's events). Answers are frozen: every caller
 * that hits shares one object.
 */
export function memoize<A extends Array<string | null>, R>(size: number, fn: (...args: A) => R): (...args: A) => R {
  const cache = new LruCache<string, R>(size);
  let lastArgs: A | null = null;
  let lastValue: R | undefined;
  return (...args) => {
    if (lastArgs !== null && args.every((a, i) => a === lastArgs![i])) return lastValue!;
    const key = args.join('\0');
    let value = cache.get(key);
    if (value === undefined) {
      value = deepFreeze(fn(...args));
      if (key.length <= MAX_MEMO_KEY_LENGTH) cache.set(key, value);
    }
    lastArgs = args;
    lastValue = value;
    return value;
  };
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}
