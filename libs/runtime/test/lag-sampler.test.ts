// The background lag reading behind /healthz, on the embedded bus: what it reads, when, and
// what it keeps when a read fails.
import { expect } from 'chai';
import { EmbeddedBus, type Bus } from '@spoor/bus';
import { createLogger } from '@spoor/service-log';
import { makeTempDir } from '@spoor/testkit';
import { LagSampler } from '../src/lag-sampler.js';

describe('LagSampler', () => {
  const logger = createLogger('test', 'error', () => {});

  it('reads every consumed group when asked, stamped with the clock, and keeps the last values when a read fails', async () => {
    const bus = await EmbeddedBus.open({ dir: await makeTempDir('lag'), logger });
    let now = 1_000;
    let failing = false;
    // The fault: the broker cannot be asked (a Kafka outage).
    const flaky: Bus = Object.assign(Object.create(bus) as Bus, {
      lag: (topic: string, group: string) =>
        failing ? Promise.reject(new Error('broker down')) : bus.lag(topic, group),
    });
    const sampler = new LagSampler(
      flaky,
      () => [
        { topic: 'a.events', group: 'g1' },
        { topic: 'b.events', group: 'g2' },
      ],
      () => now,
      60_000,
      logger,
    );
    try {
      expect(sampler.current()).to.deep.equal({ lag: {}, groups: [], sampledAt: null });
      await bus.publish(
        'a.events',
        [1, 2, 3].map((i) => ({ key: `k${i}`, value: `v${i}` })),
      );
      await sampler.refresh();
      expect(sampler.current()).to.deep.equal({
        lag: { 'a.events/g1': 3, 'b.events/g2': 0 },
        groups: [
          { topic: 'a.events', group: 'g1', lag: 3 },
          { topic: 'b.events', group: 'g2', lag: 0 },
        ],
        sampledAt: 1_000,
      });

      now = 2_000;
      failing = true;
      await bus.publish('b.events', [{ key: 'k', value: 'v' }]);
      await sampler.refresh();
      expect(sampler.current()).to.deep.equal({
        lag: { 'a.events/g1': 3, 'b.events/g2': 0 },
        groups: [
          { topic: 'a.events', group: 'g1', lag: 3 },
          { topic: 'b.events', group: 'g2', lag: 0 },
        ],
        sampledAt: 1_000,
      });

      now = 3_000;
      failing = false;
      await sampler.refresh();
      expect(sampler.current()).to.deep.equal({
        lag: { 'a.events/g1': 3, 'b.events/g2': 1 },
        groups: [
          { topic: 'a.events', group: 'g1', lag: 3 },
          { topic: 'b.events', group: 'g2', lag: 1 },
        ],
        sampledAt: 3_000,
      });
    } finally {
      await sampler.stop();
      await bus.close();
    }
  });
});
