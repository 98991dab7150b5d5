import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { createLogger } from '@spoor/service-log';
import { kafkaBrokers, makeTempDir, requireEngine } from '@spoor/testkit';
import { EmbeddedBus, KafkaBus, type Bus, type DeliveredMessage, type Subscription } from '../src/index.js';

const logger = createLogger('bus-test', 'error');

interface Implementation {
  name: string;
  open(ctx: Mocha.Context): Promise<Bus>;
}

const implementations: Implementation[] = [
  {
    name: 'embedded',
    async open() {
      return EmbeddedBus.open({ dir: await makeTempDir('bus'), logger });
    },
  },
  {
    name: 'kafka',
    async open(ctx) {
      const brokers = await kafkaBrokers();
      requireEngine(ctx, brokers, 'kafka');
      return KafkaBus.connect({ brokers: brokers.split(','), clientId: 'bus-test', logger, partitions: 4 });
    },
  },
];

/** Subscribes and resolves with the first `n` distinct messages seen (by value). */
async function collect(
  bus: Bus,
  topic: string,
  group: string,
  n: number,
  handler?: (b: DeliveredMessage[]) => Promise<void>,
) {
  const seen: DeliveredMessage[] = [];
  let sub: Subscription | undefined;
  const done = new Promise<DeliveredMessage[]>((resolve) => {
    void bus
      .subscribe({
        topic,
        group,
        maxBatch: 50,
        handler: async (batch) => {
          if (handler) await handler(batch);
          seen.push(...batch);
          if (seen.length >= n) resolve(seen);
        },
      })
      .then((s) => (sub = s));
  });
  const messages = await done;
  return {
    messages,
    stop: async () => {
      while (!sub) await new Promise((r) => setTimeout(r, 10));
      await sub.stop();
    },
  };
}

const messagesFor = (n: number, keys = 3) =>
  Array.from({ length: n }, (_, i) => ({ key: `k${i % keys}`, value: JSON.stringify({ i }) }));

for (const impl of implementations) {
  describe(`Bus contract: ${impl.name}`, function () {
    this.timeout(90_000);
    let bus: Bus;
    const topic = () => `test.${randomUUID().slice(0, 8)}`;

    beforeEach(async function () {
      bus = await impl.open(this);
    });
    afterEach(async () => {
      await bus?.close();
    });

    it('delivers every published message, in order per key', async () => {
      const t = topic();
      await bus.publish(t, messagesFor(200));
      const { messages, stop } = await collect(bus, t, 'g1', 200);
      await stop();
      const values = messages.map((m) => JSON.parse(m.value).i as number);
      expect(new Set(values).size).to.equal(200);
      for (const key of ['k0', 'k1', 'k2']) {
        const ofKey = messages.filter((m) => m.key === key).map((m) => JSON.parse(m.value).i as number);
        expect(ofKey).to.deep.equal([...ofKey].sort((a, b) => a - b));
      }
    });

    it("carries each message's headers to its consumers, and none where none were sent (issue 19)", async () => {
      const t = topic();
      const tp = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
      await bus.publish(t, [
        { key: 'k', value: 'traced', headers: { traceparent: tp } },
        { key: 'k', value: 'plain' },
      ]);
      const { messages, stop } = await collect(bus, t, 'g-headers', 2);
      await stop();
      const byValue = Object.fromEntries(messages.map((m) => [m.value, m.headers ?? {}]));
      expect(byValue).to.deep.equal({ traced: { traceparent: tp }, plain: {} });
    });

    it('redelivers a batch whose handler failed, then moves on', async () => {
      const t = topic();
      await bus.publish(t, messagesFor(20, 1));
      let failures = 0;
      const { messages, stop } = await collect(bus, t, 'g1', 20, async () => {
        if (failures < 2) {
          failures++;
          throw new Error('transient');
        }
      });
      await stop();
      expect(failures).to.equal(2);
      expect(messages.map((m) => JSON.parse(m.value).i)).to.deep.equal(Array.from({ length: 20 }, (_, i) => i));
    });

    it('resumes a group from its committed offset', async () => {
      const t = topic();
      await bus.publish(t, messagesFor(10, 1));
      const first = await collect(bus, t, 'g1', 10);
      await first.stop();
      await bus.publish(t, [{ key: 'k0', value: JSON.stringify({ i: 10 }) }]);
      const second = await collect(bus, t, 'g1', 1);
      await second.stop();
      expect(second.messages.map((m) => JSON.parse(m.value).i)).to.deep.equal([10]);
    });

    it('gives every group every message', async () => {
      const t = topic();
      await bus.publish(t, messagesFor(30));
      const [a, b] = await Promise.all([collect(bus, t, 'ga', 30), collect(bus, t, 'gb', 30)]);
      await a.stop();
      await b.stop();
      expect(a.messages).to.have.length(30);
      expect(b.messages).to.have.length(30);
    });

    it('reports lag until a group has consumed', async () => {
      const t = topic();
      await bus.publish(t, messagesFor(25));
      expect(await bus.lag(t, 'g-lag')).to.equal(25);
      const { stop } = await collect(bus, t, 'g-lag', 25);
      await stop();
      expect(await bus.lag(t, 'g-lag')).to.equal(0);
    });

    it('publishes one call larger than the broker takes in a request, in order (issue 16)', async () => {
      // 4,000 messages of 1 KiB on one key: 4 MiB for one partition, past Kafka's default
      // message.max.bytes (1 MiB), as an enricher passing on a slice after a backlog does.
      const t = topic();
      const pad = 'x'.repeat(1024);
      await bus.publish(
        t,
        Array.from({ length: 4000 }, (_, i) => ({ key: 'one', value: JSON.stringify({ i, pad }) })),
      );
      const { messages, stop } = await collect(bus, t, 'g1', 4000);
      await stop();
      expect(messages.map((m) => JSON.parse(m.value).i)).to.deep.equal(Array.from({ length: 4000 }, (_, i) => i));
    });

    it('publishes concurrent calls without losing one', async () => {
      const t = topic();
      await Promise.all(Array.from({ length: 100 }, (_, i) => bus.publish(t, [{ key: `c${i}`, value: String(i) }])));
      const { messages, stop } = await collect(bus, t, 'g1', 100);
      await stop();
      expect(new Set(messages.map((m) => m.value)).size).to.equal(100);
    });
  });
}
