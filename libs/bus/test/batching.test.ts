// Batching by time as well as size (issue 41): a lingering embedded consumer gathers a trickle of
// single-message publishes into few handler calls, and a lingering Kafka consumer's partitions of
// one fetch meet in one call (gatherCalls), each caller settled with the call's outcome.
import { expect } from 'chai';
import { createLogger } from '@spoor/service-log';
import { makeTempDir } from '@spoor/testkit';
import {
  EmbeddedBus,
  subscribeFollowing,
  type BatchContext,
  type DeliveredMessage,
  type Subscription,
} from '../src/index.js';
import { gatherCalls } from '../src/kafka/kafka-consumer.js';

const logger = createLogger('bus-test', 'error', () => {});
const TOPIC = 'events.raw';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const message = (partition: number, value: string): DeliveredMessage => ({
  topic: TOPIC,
  partition,
  offset: value,
  key: 'k',
  value,
});
const ctx = (beats: string[], name: string): BatchContext => ({ heartbeat: async () => void beats.push(name) });

describe('gatherCalls', () => {
  it('runs the calls of one turn of the event loop as one call, each partition in its order', async () => {
    const calls: string[][] = [];
    const handler = gatherCalls(async (batch) => void calls.push(batch.map((m) => m.value)));
    await Promise.all([
      handler([message(0, 'a1'), message(0, 'a2')], ctx([], 'a')),
      handler([message(1, 'b1')], ctx([], 'b')),
    ]);
    expect(calls).to.deep.equal([['a1', 'a2', 'b1']]);
  });

  it('fails every caller when the call fails, and calls again for their retries', async () => {
    let fail = true;
    const calls: string[][] = [];
    const handler = gatherCalls(async (batch) => {
      calls.push(batch.map((m) => m.value));
      if (fail) throw new Error('store away');
    });
    const outcomes = await Promise.allSettled([
      handler([message(0, 'a1')], ctx([], 'a')),
      handler([message(1, 'b1')], ctx([], 'b')),
    ]);
    expect(outcomes.map((o) => o.status)).to.deep.equal(['rejected', 'rejected']);
    fail = false;
    await handler([message(0, 'a1')], ctx([], 'a'));
    expect(calls).to.deep.equal([['a1', 'b1'], ['a1']]);
  });

  it("keeps calls of later turns apart, and beats every caller's heartbeat", async () => {
    const beats: string[] = [];
    const calls: string[][] = [];
    const handler = gatherCalls(async (batch, c) => {
      calls.push(batch.map((m) => m.value));
      await c.heartbeat();
    });
    const first = handler([message(0, 'a1')], ctx(beats, 'a'));
    const second = handler([message(1, 'b1')], ctx(beats, 'b'));
    await Promise.all([first, second]);
    await handler([message(0, 'a2')], ctx(beats, 'a'));
    expect(calls).to.deep.equal([['a1', 'b1'], ['a2']]);
    expect(beats).to.deep.equal(['a', 'b', 'a']);
  });
});

describe('EmbeddedBus lingerMs', function () {
  this.timeout(30_000);
  let bus: EmbeddedBus;
  let sub: Subscription | null = null;

  beforeEach(async () => {
    bus = await EmbeddedBus.open({ dir: await makeTempDir('bus-linger'), logger });
  });

  afterEach(async () => {
    await sub?.stop();
    sub = null;
    await bus.close();
  });

  async function trickle(lingerMs: number, count = 10, gapMs = 20): Promise<{ batches: number; delivered: number }> {
    let batches = 0;
    let delivered = 0;
    const opts = {
      topic: TOPIC,
      group: 'g',
      maxBatch: 1000,
      lingerMs,
      inFlight: 2,
      handler: async (batch: DeliveredMessage[]) => {
        batches++;
        delivered += batch.length;
      },
    };
    // As the pipeline thread reads (issue 14): a LogFollower of the log's files, whose reads
    // take a turn of the event loop each, so that records come in between two reads.
    const at = await bus.follow(TOPIC, 'g');
    sub = subscribeFollowing(opts, at, (next) => bus.commit(TOPIC, 'g', next), logger);
    // Publishes of one message every gapMs, not waiting for each other: a site's trickle.
    const writes: Array<Promise<void>> = [];
    for (let i = 0; i < count; i++) {
      writes.push(bus.publish(TOPIC, [{ key: 'k', value: String(i) }]));
      await sleep(gapMs);
    }
    await Promise.all(writes);
    for (let i = 0; delivered < count && i < 400; i++) await sleep(10);
    return { batches, delivered };
  }

  it('gathers a trickle of publishes into few batches', async () => {
    const { batches, delivered } = await trickle(400);
    expect(delivered).to.equal(10);
    expect(batches).to.be.at.most(2);
  });

  it('stops lingering once a whole batch waits (size or time, whichever comes first)', async () => {
    const batches: number[] = [];
    const at = await bus.follow(TOPIC, 'g');
    sub = subscribeFollowing(
      {
        topic: TOPIC,
        group: 'g',
        maxBatch: 40,
        lingerMs: 5_000,
        handler: async (batch) => void batches.push(batch.length),
      },
      at,
      (next) => bus.commit(TOPIC, 'g', next),
      logger,
    );
    const started = Date.now();
    await bus.publish(TOPIC, [{ key: 'k', value: 'first' }]);
    await sleep(100);
    await bus.publish(
      TOPIC,
      Array.from({ length: 50 }, (_, i) => ({ key: 'k', value: String(i) })),
    );
    for (let i = 0; batches.length === 0 && i < 400; i++) await sleep(10);
    expect(batches[0]).to.equal(40);
    expect(Date.now() - started).to.be.below(2_000);
  });

  it('without a linger, hands each publish over as it comes', async () => {
    const { batches, delivered } = await trickle(0);
    expect(delivered).to.equal(10);
    expect(batches).to.be.at.least(8);
  });
});
