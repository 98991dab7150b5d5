// The embedded log's read-ahead (SubscribeOptions.inFlight, issue 14): the next batch reaches the
// handler before the previous one resolved, offsets still commit in order, and a failed batch is
// delivered again from its first record with everything after it.
import { expect } from 'chai';
import { createLogger } from '@spoor/service-log';
import { makeTempDir } from '@spoor/testkit';
import { EmbeddedBus, type DeliveredMessage, type Subscription } from '../src/index.js';

const logger = createLogger('bus-test', 'error', () => {});
const TOPIC = 'events.raw';
const range = (from: number, n: number) => Array.from({ length: n }, (_, i) => from + i);
const messages = (from: number, n: number) => range(from, n).map((i) => ({ key: 'k', value: String(i) }));
const values = (batch: DeliveredMessage[]) => batch.map((m) => Number(m.value));

/** A promise with its resolve and reject at hand. */
function deferred() {
  let resolve!: () => void;
  let reject!: (err: Error) => void;
  const promise = new Promise<void>((res, rej) => ((resolve = res), (reject = rej)));
  return { promise, resolve, reject };
}

async function until(check: () => boolean): Promise<void> {
  for (let i = 0; !check(); i++) {
    if (i > 1000) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 5));
  }
}

describe('EmbeddedBus inFlight', function () {
  this.timeout(30_000);
  let dir: string;
  let bus: EmbeddedBus;
  let sub: Subscription | null;

  beforeEach(async () => {
    dir = await makeTempDir('bus-inflight');
    bus = await EmbeddedBus.open({ dir, logger });
    sub = null;
  });

  afterEach(async () => {
    await sub?.stop();
    await bus.close();
  });

  /** Waits (up to 1 s) for group g to commit everything published, and says so. */
  async function committedAll(): Promise<void> {
    for (let i = 0; (await bus.lag(TOPIC, 'g')) > 0 && i < 200; i++) await new Promise((r) => setTimeout(r, 5));
    expect(await bus.lag(TOPIC, 'g')).to.equal(0);
  }

  /** Subscribes with batches of 10; each call waits on its own deferred, which the test settles. */
  async function subscribe(inFlight: number) {
    const calls: Array<{ batch: DeliveredMessage[]; done: ReturnType<typeof deferred> }> = [];
    sub = await bus.subscribe({
      topic: TOPIC,
      group: 'g',
      maxBatch: 10,
      inFlight,
      handler: (batch) => {
        const done = deferred();
        calls.push({ batch, done });
        return done.promise;
      },
    });
    return calls;
  }

  it('hands over the next batch before the previous one resolved, never more than inFlight, and commits in order', async () => {
    await bus.publish(TOPIC, messages(0, 40));
    const calls = await subscribe(2);
    await until(() => calls.length === 2);
    expect(calls.map((c) => values(c.batch))).to.deep.equal([range(0, 10), range(10, 10)]);
    // The second resolves first: nothing commits until the first has.
    calls[1]!.done.resolve();
    await new Promise((r) => setTimeout(r, 50));
    expect(calls).to.have.length(2);
    expect(await bus.lag(TOPIC, 'g')).to.equal(40);
    calls[0]!.done.resolve();
    await until(() => calls.length === 4);
    expect(await bus.lag(TOPIC, 'g')).to.equal(20);
    calls[2]!.done.resolve();
    calls[3]!.done.resolve();
    await committedAll();
  });

  it('delivers a failed batch again from its first record, with the batch after it, and loses or doubles nothing', async () => {
    await bus.publish(TOPIC, messages(0, 20));
    const calls = await subscribe(2);
    await until(() => calls.length === 2);
    // The second succeeds, the first fails: both come again, in order.
    calls[1]!.done.resolve();
    calls[0]!.done.reject(new Error('injected'));
    await until(() => calls.length === 4);
    expect(values(calls[2]!.batch)).to.deep.equal(values(calls[0]!.batch));
    expect(values(calls[3]!.batch)).to.deep.equal(values(calls[1]!.batch));
    calls[2]!.done.resolve();
    calls[3]!.done.resolve();
    await committedAll();
  });

  it('on stop, commits the batches that resolved in order and leaves the rest for the next consumer', async () => {
    await bus.publish(TOPIC, messages(0, 30));
    const calls = await subscribe(3);
    await until(() => calls.length === 3);
    calls[0]!.done.resolve();
    calls[2]!.done.resolve();
    const stopping = sub!.stop();
    sub = null;
    calls[1]!.done.reject(new Error('gone'));
    await stopping;
    // The first committed; the second failed, so the third is delivered again even though it resolved.
    expect(await bus.lag(TOPIC, 'g')).to.equal(20);
    const again = await subscribe(1);
    await until(() => again.length === 1);
    expect(values(again[0]!.batch)).to.deep.equal(range(10, 10));
    again[0]!.done.resolve();
  });
});
