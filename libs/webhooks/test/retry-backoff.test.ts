import { expect } from 'chai';
import { nextRetryDelay, WEBHOOK_RETRY } from '../src/index.js';

describe('webhook retry schedule', function () {
  const low = () => 0;
  const high = () => 1;

  it('grows fourfold from the base with equal jitter, capped', function () {
    const cases: Array<[number, number]> = [
      [1, 5_000],
      [2, 20_000],
      [3, 80_000],
      [4, 320_000],
      [8, WEBHOOK_RETRY.capMs],
      [9, WEBHOOK_RETRY.capMs],
    ];
    for (const [attempt, full] of cases) {
      expect(nextRetryDelay(attempt, null, low), `attempt ${attempt}, least`).to.equal(full / 2);
      expect(nextRetryDelay(attempt, null, high), `attempt ${attempt}, most`).to.equal(full);
    }
  });

  it('honours Retry-After when it asks for longer, up to a day', function () {
    expect(nextRetryDelay(1, 60_000, high)).to.equal(60_000);
    expect(nextRetryDelay(1, 1_000, high)).to.equal(5_000);
    expect(nextRetryDelay(1, 7 * 24 * 3_600_000, high)).to.equal(24 * 3_600_000);
  });

  it('gives up after the last attempt, and scales with a shorter base', function () {
    expect(nextRetryDelay(WEBHOOK_RETRY.maxAttempts, null)).to.equal(null);
    expect(nextRetryDelay(2, null, high, 100)).to.equal(400);
  });
});
