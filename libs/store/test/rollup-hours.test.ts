// The rollup refresh of one store call runs once, however many of its queries ask for it.
import { expect } from 'chai';
import { refreshOnce } from '../src/rollup-hours.js';

describe('refreshOnce', () => {
  it('runs the refresh once for every caller of one call, at once or later, and again for the next call', async () => {
    let runs = 0;
    let finish!: () => void;
    const refresh = () => {
      runs += 1;
      return new Promise<void>((resolve) => (finish = resolve));
    };
    const call = refreshOnce(refresh);
    const waiting = [call(), call()];
    expect(runs).to.equal(1);
    finish();
    await Promise.all(waiting);
    await call();
    expect(runs).to.equal(1);
    const next = refreshOnce(refresh);
    const again = next();
    finish();
    await again;
    expect(runs).to.equal(2);
  });

  it('hands a failed refresh to every caller of the call', async () => {
    const call = refreshOnce(() => Promise.reject(new Error('engine down')));
    for (const attempt of [call(), call()]) {
      let failed: unknown = null;
      await attempt.catch((err: unknown) => {
        failed = err;
      });
      expect(String(failed)).to.match(/engine down/);
    }
  });
});
