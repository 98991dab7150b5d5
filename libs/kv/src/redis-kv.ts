import { Redis } from 'ioredis';
import type { Kv, KvEntry } from './kv.js';
import { redisRateCounter, type RateCounter, type RateCounterOptions } from './rate-counter.js';
import { explainRedisFailure, type RedisTls } from './redis-connect-error.js';

/** A literal for SCAN's MATCH: `*`, `?`, `[`, `]` and `\\` stand for themselves. */
const globEscape = (s: string) => s.replace(/[*?[\]\\]/g, (c) => `\\${c}`);

/** Redis through ioredis; every key gets `prefix` so deployments can share one server. */
export class RedisKv implements Kv {
  readonly kind = 'redis' as const;

  private constructor(private readonly redis: Redis) {}

  /** `tls`: PEM for a rediss:// URL (SPOOR_REDIS_TLS_*, issue 46); the hostname is always verified. */
  static async connect(url: string, prefix: string, tls?: RedisTls | null): Promise<RedisKv> {
    // commandTimeout bounds every command while Redis is away or stuck (issue 16, docs/reliability.md):
    // without it a command waits in ioredis' offline queue until its reconnects give up (seconds,
    // growing), and a consumer or request waits with it. Callers treat the rejection as a failure
    // (consumers retry their batch; rate limits fall back to memory).
    const redis = new Redis(url, {
      keyPrefix: prefix,
      lazyConnect: true,
      maxRetriesPerRequest: 3,
      enableAutoPipelining: true,
      commandTimeout: 2_000,
      ...(tls ? { tls: { rejectUnauthorized: true, ...tls } } : {}),
    });
    // connect() rejects with "Connection is closed."; the socket's own error came before it.
    let cause: unknown = null;
    const noteCause = (err: unknown) => void (cause ??= err);
    redis.on('error', noteCause);
    try {
      await redis.connect();
    } catch (err) {
      // ioredis would go on reconnecting behind a failed first connection.
      redis.disconnect();
      throw explainRedisFailure(cause ?? err, url);
    } finally {
      redis.off('error', noteCause);
    }
    return new RedisKv(redis);
  }

  /** Connected and answering: while not, a caller with a fallback takes it at once instead of waiting for commandTimeout. */
  ready(): boolean {
    return this.redis.status === 'ready';
  }

  rateCounter(opts: RateCounterOptions): RateCounter {
    return redisRateCounter(this.redis, opts);
  }

  get(key: string): Promise<string | null> {
    return this.redis.get(key);
  }

  async mget(keys: string[]): Promise<Array<string | null>> {
    return keys.length === 0 ? [] : this.redis.mget(keys);
  }

  async set(key: string, value: string, ttlMs?: number): Promise<void> {
    if (ttlMs === undefined) await this.redis.set(key, value);
    else await this.redis.set(key, value, 'PX', ttlMs);
  }

  async mset(entries: KvEntry[]): Promise<void> {
    if (entries.length === 0) return;
    const pipeline = this.redis.pipeline();
    for (const e of entries) {
      if (e.ttlMs === undefined) pipeline.set(e.key, e.value);
      else pipeline.set(e.key, e.value, 'PX', e.ttlMs);
    }
    const results = await pipeline.exec();
    const failed = results?.find(([err]) => err);
    if (failed) throw failed[0];
  }

  async setIfAbsent(key: string, value: string, ttlMs?: number): Promise<boolean> {
    const result =
      ttlMs === undefined
        ? await this.redis.set(key, value, 'NX')
        : await this.redis.set(key, value, 'PX', ttlMs, 'NX');
    return result === 'OK';
  }

  async incr(key: string, by = 1, ttlMs?: number): Promise<number> {
    const value = await this.redis.incrby(key, by);
    // The first increment created the key: give it its TTL then, not on every hit.
    if (ttlMs !== undefined && value === by) await this.redis.pexpire(key, ttlMs);
    return value;
  }

  async del(key: string): Promise<void> {
    await this.redis.del(key);
  }

  async deletePrefixes(prefixes: string[]): Promise<number> {
    // SCAN's MATCH sees whole keys: ioredis adds keyPrefix to commands' keys, not to patterns.
    const own = this.redis.options.keyPrefix ?? '';
    let n = 0;
    for (const prefix of prefixes) {
      const match = `${globEscape(own + prefix)}*`;
      let cursor = '0';
      do {
        const [next, keys] = await this.redis.scan(cursor, 'MATCH', match, 'COUNT', 1000);
        cursor = next;
        // UNLINK through ioredis adds keyPrefix again, so it gets the keys without it.
        if (keys.length > 0) n += await this.redis.unlink(...keys.map((k) => k.slice(own.length)));
      } while (cursor !== '0');
    }
    return n;
  }

  async close(): Promise<void> {
    await this.redis.quit();
  }
}
