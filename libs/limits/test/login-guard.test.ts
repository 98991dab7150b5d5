import { expect } from 'chai';
import type { RateLimitConfig } from '@spoor/config';
import { MemoryKv } from '@spoor/kv';
import { LoginGuard, RateLimits } from '../src/index.js';

// Issue 42: failures lock the (account, address) pair they come from, not the account, so someone
// elsewhere who knows an email cannot lock its owner out; guessing spread over many addresses is
// bounded by an account-wide ceiling (20× the pair's threshold) that spares the addresses the
// account logged in from.

const N = 3;
const config: RateLimitConfig = {
  ingestPerProject: 0,
  ingestPerIp: 0,
  signupsPerIpHour: 0,
  loginFailures: N,
  triggersPerMinute: 0,
  ruleTestsPerMinute: 0,
  sharedPerIpMinute: 0,
  shareUnlocksPerIpHour: 0,
};

async function status(run: () => Promise<void>): Promise<number> {
  try {
    await run();
    return 200;
  } catch (err) {
    return (err as { status?: number }).status ?? 500;
  }
}

describe('LoginGuard', function () {
  let kv: MemoryKv;
  let limits: RateLimits;
  let guard: LoginGuard;
  const email = 'owner@example.com';
  const attacker = '203.0.113.7';
  const owner = '198.51.100.9';

  beforeEach(() => {
    kv = new MemoryKv();
    limits = new RateLimits(kv, config);
    guard = new LoginGuard(limits);
  });
  afterEach(() => kv.close());

  it('locks the address that fails, and only that address, out of the account', async () => {
    for (let i = 0; i <= N; i++) await guard.failed(email, attacker);
    expect(await status(() => guard.check(email, attacker))).to.equal(429);
    // The owner, at their own address, never logged in from it before: not blocked.
    expect(await status(() => guard.check(email, owner))).to.equal(200);
    // Nor is the attacker's address blocked for other accounts (4× N failures in all for that).
    expect(await status(() => guard.check('someone@example.com', attacker))).to.equal(200);
    expect(limits.stats()).to.include({ rate_limited_login_account: 1 });
  });

  it('still blocks an address guessing many accounts (4× N failures over all of them)', async () => {
    for (let i = 0; i <= 4 * N; i++) await guard.failed(`user-${i}@example.com`, attacker);
    expect(await status(() => guard.check('fresh@example.com', attacker))).to.equal(429);
    expect(await status(() => guard.check('fresh@example.com', owner))).to.equal(200);
  });

  it('bounds guessing spread over many addresses, sparing the addresses the account logged in from', async () => {
    await guard.succeeded(email, owner);
    // N failures from each of 20 addresses: no pair is locked, the ceiling (20 × N) is reached.
    for (let a = 0; a < 20; a++) for (let i = 0; i < N; i++) await guard.failed(email, `192.0.2.${a}`);
    expect(await status(() => guard.check(email, '192.0.2.99'))).to.equal(200);
    await guard.failed(email, '192.0.2.21'); // one past the ceiling: 1 s for every new address
    expect(await status(() => guard.check(email, '192.0.2.99'))).to.equal(429);
    expect(await status(() => guard.check(email, '2001:db8:1::1'))).to.equal(429);
    // The owner's known address is not slowed down by the ceiling …
    expect(await status(() => guard.check(email, owner))).to.equal(200);
    // … and in the same /64 an IPv6 address counts as the same client.
    await guard.succeeded(email, '2001:db8:2::1');
    expect(await status(() => guard.check(email, '2001:db8:2::ffff'))).to.equal(200);
  });

  it("a success resets the pair's count, not the address' nor the account's", async () => {
    for (let i = 0; i < N; i++) await guard.failed(email, attacker);
    await guard.succeeded(email, attacker);
    for (let i = 0; i < N; i++) await guard.failed(email, attacker);
    expect(await status(() => guard.check(email, attacker))).to.equal(200);
    await guard.failed(email, attacker);
    expect(await status(() => guard.check(email, attacker))).to.equal(429);
  });

  it('does nothing when SPOOR_RATE_LOGIN_FAILURES is 0', async () => {
    const off = new LoginGuard(new RateLimits(kv, { ...config, loginFailures: 0 }));
    for (let i = 0; i < 100; i++) await off.failed(email, attacker);
    expect(await status(() => off.check(email, attacker))).to.equal(200);
  });
});
