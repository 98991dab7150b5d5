import { isIPv6 } from 'node:net';
import type { RateLimitConfig } from '@spoor/config';
import { errors } from '@spoor/http';
import type { Kv, RateCounter } from '@spoor/kv';

/** Every limit, by the name it has in /metrics and docs/security.md. */
export const LIMIT_NAMES = [
  'ingest_project',
  'ingest_ip',
  'signup_ip',
  'login_account',
  'login_ip',
  'triggers_account',
  'rules_test_account',
  'shared_ip',
  'share_unlock_ip',
] as const;
export type LimitName = (typeof LIMIT_NAMES)[number];

/**
 * The key of a client address: an IPv6 client holds a whole /64 (one SLAAC network), so it is
 * limited as one; IPv4-mapped addresses count as their IPv4 address.
 */
export function clientKey(ip: string): string {
  const bare = ip.startsWith('::ffff:') && ip.includes('.') ? ip.slice(7) : ip;
  if (!isIPv6(bare)) return bare;
  const [head = '', tail] = bare.split('::');
  const groups = head.split(':').filter(Boolean);
  const missing = tail === undefined ? 0 : 8 - groups.length - tail.split(':').filter(Boolean).length;
  const full =
    tail === undefined ? groups : [...groups, ...Array(missing).fill('0'), ...tail.split(':').filter(Boolean)];
  return `${full
    .slice(0, 4)
    .map((g) => parseInt(g, 16).toString(16))
    .join(':')}::/64`;
}

/**
 * The fixed-window limits of a process (issue 13), kept where the KV keeps state: in memory in
 * the embedded default, in Redis when there is one, so every ingest or gateway copy shares them.
 * Each refusal is counted by limit name (`stats()`, shown in /metrics).
 */
export class RateLimits {
  private readonly counters = new Map<LimitName, RateCounter>();
  private readonly blockCounters = new Map<string, RateCounter>();
  private readonly refused: Record<LimitName, number> = Object.fromEntries(LIMIT_NAMES.map((n) => [n, 0])) as Record<
    LimitName,
    number
  >;

  /** `names`: the limits this service enforces (and reports in stats()). */
  constructor(
    private readonly kv: Kv,
    readonly config: RateLimitConfig,
    private readonly names: readonly LimitName[] = LIMIT_NAMES,
  ) {}

  /** Spends `points` of `limit` for `key`; throws the catalogue's 429 with Retry-After when over. */
  async spend(limit: LimitName, key: string, points = 1): Promise<void> {
    const counter = this.counter(limit);
    if (!counter) return;
    const wait = await counter.consume(key, points);
    if (wait > 0) throw this.refuse(limit, wait);
  }

  /** The catalogue's 429 for `limit`, counted. */
  refuse(limit: LimitName, retryAfterSec: number) {
    this.refused[limit]++;
    return errors.tooManyRequests(retryAfterSec);
  }

  /** The counter of a limit, made on first use; null when the limit is off (0). */
  counter(limit: LimitName): RateCounter | null {
    const found = this.counters.get(limit);
    if (found) return found;
    const window = WINDOWS[limit](this.config);
    if (window.points <= 0) return null;
    const made = this.kv.rateCounter({ name: limit, ...window });
    this.counters.set(limit, made);
    return made;
  }

  /**
   * A second counter beside `limit`'s that only holds blocks (LoginGuard's back-off), so that a
   * block never overwrites the count of failures that decides the next one.
   */
  blocks(limit: LimitName): RateCounter {
    const name = `${limit}_block`;
    let made = this.blockCounters.get(name);
    if (!made) this.blockCounters.set(name, (made = this.kv.rateCounter({ name, points: 1, durationSec: 1 })));
    return made;
  }

  /**
   * A counter that never refuses, only remembers keys for `durationSec` (LoginGuard's addresses an
   * account logged in from). Kept where the limits are: in Redis when there is one.
   */
  memory(name: string, durationSec: number): RateCounter {
    let made = this.blockCounters.get(name);
    if (!made) this.blockCounters.set(name, (made = this.kv.rateCounter({ name, points: 1_000_000, durationSec })));
    return made;
  }

  /** Refusals per limit since start, for /metrics (`rate_limited_<name>`). */
  stats(): Record<string, number> {
    return Object.fromEntries(this.names.map((n) => [`rate_limited_${n}`, this.refused[n]]));
  }
}

/**
 * Points per window for each limit. The login windows count failures over an hour; the back-off
 * itself is LoginGuard's (blocks that double).
 */
const WINDOWS: Record<LimitName, (c: RateLimitConfig) => { points: number; durationSec: number }> = {
  ingest_project: (c) => ({ points: c.ingestPerProject, durationSec: 1 }),
  ingest_ip: (c) => ({ points: c.ingestPerIp, durationSec: 1 }),
  signup_ip: (c) => ({ points: c.signupsPerIpHour, durationSec: 3600 }),
  login_account: (c) => ({ points: c.loginFailures > 0 ? 1_000_000 : 0, durationSec: 3600 }),
  login_ip: (c) => ({ points: c.loginFailures > 0 ? 1_000_000 : 0, durationSec: 3600 }),
  triggers_account: (c) => ({ points: c.triggersPerMinute, durationSec: 60 }),
  rules_test_account: (c) => ({ points: c.ruleTestsPerMinute, durationSec: 60 }),
  shared_ip: (c) => ({ points: c.sharedPerIpMinute, durationSec: 60 }),
  share_unlock_ip: (c) => ({ points: c.shareUnlocksPerIpHour, durationSec: 3600 }),
};
