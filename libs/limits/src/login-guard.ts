import { createHash } from 'node:crypto';
import { clientKey, type RateLimits } from './rate-limits.js';

/** The longest wait one more failure can cost (15 minutes). */
const MAX_BLOCK_SEC = 15 * 60;
/** A client address may fail this many times more, over every account, than one (account, address) pair. */
const IP_FACTOR = 4;
/** The account-wide ceiling, over every address: this many times the pair's failures. */
const ACCOUNT_FACTOR = 20;
/**
 * How long an address that logged in stays exempt from the account-wide ceiling. 14 days: the
 * memory counter expires its windows with a timer, which cannot wait past 24.8 days.
 */
const KNOWN_SEC = 14 * 24 * 3600;

type Limit = 'login_account' | 'login_ip';
interface Counted {
  limit: Limit;
  key: string;
  /** Failures in the hour before each further one blocks the key for twice as long. */
  threshold: number;
  /** The account-wide ceiling: not applied to addresses the account logged in from. */
  accountWide?: true;
}

/**
 * Brute-force protection for POST /v1/auth/login (issue 13, issue 42). Failures are counted over
 * an hour per (account, client address), per client address and per account. Past its threshold
 * every further failure blocks the key for twice as long as the one before, 1 s, 2 s, 4 s … up to
 * 15 minutes; a blocked key answers 429 with Retry-After before the password is even checked.
 *
 * - (account, address), `loginFailures`: the lock that stops guessing. Someone elsewhere who
 *   knows an email locks only their own address out of it, never its owner's (issue 42).
 * - address, 4× `loginFailures` over every account: one address guessing many accounts.
 * - account, 20× `loginFailures` over every address: bounds guessing spread over many addresses.
 *   It does not apply to an address the account logged in from in the last 14 days, so a botnet
 *   can delay the owner only at an address they have not used yet.
 *
 * A success resets its (account, address) pair and remembers the address; the address' and the
 * account's counts age out with their hour (a success must not clear the count of an attacker
 * who owns one of the accounts, nor reopen the ceiling to the botnet).
 */
export class LoginGuard {
  constructor(private readonly limits: RateLimits) {}

  /** Throws 429 while the pair, the address or (for a new address) the account is blocked. */
  async check(email: string, ip: string): Promise<void> {
    if (this.limits.config.loginFailures <= 0) return;
    let known: boolean | undefined;
    for (const { limit, key, accountWide } of this.keys(email, ip)) {
      const wait = await this.limits.blocks(limit).consume(key, 0);
      if (!wait) continue;
      if (accountWide && (known ??= await this.known(email, ip))) continue;
      throw this.limits.refuse(limit, wait);
    }
  }

  async failed(email: string, ip: string): Promise<void> {
    for (const { limit, key, threshold } of this.keys(email, ip)) {
      const failures = this.limits.counter(limit);
      if (!failures) continue;
      await failures.consume(key, 1);
      const over = (await failures.spent(key)) - threshold;
      if (over > 0) await this.limits.blocks(limit).block(key, Math.min(MAX_BLOCK_SEC, 2 ** (over - 1)));
    }
  }

  async succeeded(email: string, ip: string): Promise<void> {
    if (this.limits.config.loginFailures <= 0) return;
    const [pair] = this.keys(email, ip);
    await this.limits.counter('login_account')?.reset(pair!.key);
    await this.limits.blocks('login_account').reset(pair!.key);
    // A fresh window: the address stays known for KNOWN_SEC after its latest success.
    const memory = this.limits.memory('login_known', KNOWN_SEC);
    await memory.reset(this.knownKey(email, ip));
    await memory.consume(this.knownKey(email, ip), 1);
  }

  private async known(email: string, ip: string): Promise<boolean> {
    return (await this.limits.memory('login_known', KNOWN_SEC).spent(this.knownKey(email, ip))) > 0;
  }

  /** Hashed: the pair is kept for days, longer than the failure counts, and need not be readable. */
  private knownKey(email: string, ip: string): string {
    return createHash('sha256')
      .update(JSON.stringify([email.trim().toLowerCase(), clientKey(ip)]))
      .digest('base64url');
  }

  /** The pair first: `succeeded` resets it. Counted under `login_account` in /metrics, as the ceiling. */
  private keys(email: string, ip: string): Counted[] {
    const account = email.trim().toLowerCase();
    const address = clientKey(ip);
    const n = this.limits.config.loginFailures;
    return [
      { limit: 'login_account', key: JSON.stringify([account, address]), threshold: n },
      { limit: 'login_ip', key: address, threshold: n * IP_FACTOR },
      { limit: 'login_account', key: JSON.stringify([account]), threshold: n * ACCOUNT_FACTOR, accountWide: true },
    ];
  }
}
