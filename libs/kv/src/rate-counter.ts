import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { Redis } from 'ioredis';

export interface RateCounterOptions {
  /** Names the counter's keys: one namespace per limit. */
  name: string;
  /** Points allowed per window. */
  points: number;
  durationSec: number;
}

/**
 * A fixed-window counter per key (rate-limiter-flexible), in memory or in Redis so that every
 * process of a deployment shares it (DESIGN.md: Redis holds rate limits).
 */
export interface RateCounter {
  /** Spends `points`; answers 0 when allowed, else the seconds until the window lets more through. */
  consume(key: string, points?: number): Promise<number>;
  /** Points spent in the current window (0 when none). */
  spent(key: string): Promise<number>;
  /** Refuses the key for `seconds`, whatever the window says. */
  block(key: string, seconds: number): Promise<void>;
  /** Forgets the key. */
  reset(key: string): Promise<void>;
}

const retryAfterSec = (res: RateLimiterRes) => Math.max(1, Math.ceil(res.msBeforeNext / 1000));

export function rateCounterOn(limiter: RateLimiterAbstract): RateCounter {
  return {
    async consume(key, points = 1) {
      try {
        await limiter.consume(key, points);
        return 0;
      } catch (res) {
        if (res instanceof RateLimiterRes) return retryAfterSec(res);
        throw res;
      }
    },
    async spent(key) {
      return (await limiter.get(key))?.consumedPoints ?? 0;
    },
    async block(key, seconds) {
      await limiter.block(key, seconds);
    },
    async reset(key) {
      await limiter.delete(key);
    },
  };
}

export function memoryRateCounter(opts: RateCounterOptions): RateCounter {
  return rateCounterOn(
    new RateLimiterMemory({ keyPrefix: `rl:${opts.name}`, points: opts.points, duration: opts.durationSec }),
  );
}

/**
 * Redis-backed, with a memory counter as insurance: when Redis cannot answer, each process limits
 * on its own rather than refusing everything (or letting everything through).
 */
export function redisRateCounter(redis: Redis, opts: RateCounterOptions): RateCounter {
  const insuranceLimiter = new RateLimiterMemory({
    keyPrefix: `rl:${opts.name}`,
    points: opts.points,
    duration: opts.durationSec,
  });
  const shared = rateCounterOn(
    new RateLimiterRedis({
      storeClient: redis,
      keyPrefix: `rl:${opts.name}`,
      points: opts.points,
      duration: opts.durationSec,
      insuranceLimiter,
    }),
  );
  const local = rateCounterOn(insuranceLimiter);
  // While Redis is not connected, go to the insurance counter at once (issue 16): ioredis would
  // queue the command until its reconnect attempts give up, seconds later, holding every request.
  const pick = () => (redis.status === 'ready' ? shared : local);
  return {
    consume: (key, points) => pick().consume(key, points),
    spent: (key) => pick().spent(key),
    block: (key, seconds) => pick().block(key, seconds),
    reset: (key) => pick().reset(key),
  };
}
