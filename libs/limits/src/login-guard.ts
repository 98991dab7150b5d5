import { clientKey, type RateLimits } from './rate-limits.js';

/** The longest wait one more failure can cost (15 minutes). */
const MAX_BLOCK_SEC = 15 * 60;
/** A client address may fail this many times more than one account before its back-off starts. */
const IP_FACTOR = 4;

/**
 * Brute-force protection for POST /v1/auth/login (issue 13): failures are counted per account
 * (its lowercased email) and per client address. Past `loginFailures` (4× that per address) every
 * further failure blocks the key for twice as long as the one before, 1 s, 2 s, 4 s … up to 15
 * minutes; a blocked key answers 429 with Retry-After before the password is even checked. A
 * success resets the account's count.
 */
export class LoginGuard {
  constructor(private readonly limits: RateLimits) {}

  /** Throws 429 while the account or the address is blocked. */
  async check(email: string, ip: string): Promise<void> {
    if (this.limits.config.loginFailures <= 0) return;
    for (const [limit, key] of this.keys(email, ip)) {
      const wait = await this.limits.blocks(limit).consume(key, 0);
      if (wait) throw this.limits.refuse(limit, wait);
    }
  }

  async failed(email: string, ip: string): Promise<void> {
    const threshold = this.limits.config.loginFailures;
    for (const [limit, key] of this.keys(email, ip)) {
      const failures = this.limits.counter(limit);
      if (!failures) continue;
      await failures.consume(key, 1);
      const over = (await failures.spent(key)) - threshold * (limit === 'login_ip' ? IP_FACTOR : 1);
      if (over > 0) await this.limits.blocks(limit).block(key, Math.min(MAX_BLOCK_SEC, 2 ** (over - 1)));
    }
  }

  /**
   * Only the account's count: an attacker who owns one account could otherwise clear the count of
   * the address they guess other accounts' passwords from. The address' count ages out with its
   * hour.
   */
  async succeeded(email: string, _ip: string): Promise<void> {
    const key = email.trim().toLowerCase();
    await this.limits.counter('login_account')?.reset(key);
    await this.limits.blocks('login_account').reset(key);
  }

  private keys(email: string, ip: string): Array<['login_account' | 'login_ip', string]> {
    return [
      ['login_account', email.trim().toLowerCase()],
      ['login_ip', clientKey(ip)],
    ];
  }
}
