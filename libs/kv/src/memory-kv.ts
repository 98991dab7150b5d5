import type { Kv, KvEntry } from './kv.js';
import { memoryRateCounter, type RateCounter, type RateCounterOptions } from './rate-counter.js';

interface Item {
  value: string;
  expiresAt: number;
}

/** The one-process stand-in for Redis. Expired keys vanish on read and in a periodic sweep. */
export class MemoryKv implements Kv {
  readonly kind = 'memory' as const;
  private readonly items = new Map<string, Item>();
  private readonly sweeper: NodeJS.Timeout;

  constructor(
    private readonly now: () => number = Date.now,
    sweepEveryMs = 60_000,
  ) {
    this.sweeper = setInterval(() => this.sweep(), sweepEveryMs);
    this.sweeper.unref();
  }

  async get(key: string): Promise<string | null> {
    return this.read(key);
  }

  async mget(keys: string[]): Promise<Array<string | null>> {
    return keys.map((k) => this.read(k));
  }

  async set(key: string, value: string, ttlMs?: number): Promise<void> {
    this.write(key, value, ttlMs);
  }

  async mset(entries: KvEntry[]): Promise<void> {
    for (const e of entries) this.write(e.key, e.value, e.ttlMs);
  }

  async setIfAbsent(key: string, value: string, ttlMs?: number): Promise<boolean> {
    if (this.read(key) !== null) return false;
    this.write(key, value, ttlMs);
    return true;
  }

  async incr(key: string, by = 1, ttlMs?: number): Promise<number> {
    const current = this.read(key);
    const next = (current === null ? 0 : Number(current)) + by;
    if (current === null) this.write(key, String(next), ttlMs);
    else this.items.get(key)!.value = String(next);
    return next;
  }

  async del(key: string): Promise<void> {
    this.items.delete(key);
  }

  async deletePrefixes(prefixes: string[]): Promise<number> {
    let n = 0;
    for (const key of [...this.items.keys()]) {
      if (prefixes.some((p) => key.startsWith(p)) && this.items.delete(key)) n++;
    }
    return n;
  }

  rateCounter(opts: RateCounterOptions): RateCounter {
    return memoryRateCounter(opts);
  }

  async close(): Promise<void> {
    clearInterval(this.sweeper);
    this.items.clear();
  }

  private read(key: string): string | null {
    const item = this.items.get(key);
    if (!item) return null;
    if (item.expiresAt <= this.now()) {
      this.items.delete(key);
      return null;
    }
    return item.value;
  }

  private write(key: string, value: string, ttlMs?: number): void {
    this.items.set(key, { value, expiresAt: ttlMs === undefined ? Infinity : this.now() + ttlMs });
  }

  private sweep(): void {
    const now = this.now();
    for (const [key, item] of this.items) if (item.expiresAt <= now) this.items.delete(key);
  }
}
