export interface KvEntry {
  key: string;
  value: string;
  /** Time to live; absent keeps the key until deleted. */
  ttlMs?: number;
}

/**
 * Key-value state that can be rebuilt (DESIGN.md: open sessions, dedup keys, rate limits,
 * caches). Redis in production, memory in the one-process default.
 */
import type { RateCounter, RateCounterOptions } from './rate-counter.js';

export interface Kv {
  readonly kind: 'redis' | 'memory';
  get(key: string): Promise<string | null>;
  mget(keys: string[]): Promise<Array<string | null>>;
  set(key: string, value: string, ttlMs?: number): Promise<void>;
  mset(entries: KvEntry[]): Promise<void>;
  /** Sets only when absent; true when this call set it. */
  setIfAbsent(key: string, value: string, ttlMs?: number): Promise<boolean>;
  /** Adds `by` and returns the new value; the TTL is set when the key is created. */
  incr(key: string, by?: number, ttlMs?: number): Promise<number>;
  del(key: string): Promise<void>;
  /**
   * Deletes every key that starts with one of `prefixes`; answers how many. A scan of the
   * keyspace (Redis SCAN, never KEYS): for rare work such as deleting a project (issue 17).
   */
  deletePrefixes(prefixes: string[]): Promise<number>;
  /** A rate counter kept where this KV keeps its state (shared by every process on Redis). */
  rateCounter(opts: RateCounterOptions): RateCounter;
  close(): Promise<void>;
}
