import { expect } from 'chai';
import { appendFile, readdir, truncate } from 'node:fs/promises';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { createLogger } from '@spoor/service-log';
import { makeTempDir } from '@spoor/testkit';
import { EmbeddedBus, type DeliveredMessage } from '../src/index.js';
import { LogFollower } from '../src/embedded/log-follower.js';
import { encodeRecords } from '../src/embedded/record-codec.js';
import { TopicLog } from '../src/embedded/topic-log.js';

const logger = createLogger('bus-test', 'error');
const message = (i: number) => ({ key: `k${i % 3}`, value: `value ${i} ${'x'.repeat(i % 50)}` });

describe('LogFollower', () => {
  it('reads what the log holds, across segment files, exactly as the log reads it', async () => {
    const dir = await makeTempDir('follow');
    // Small segments: the 300 records span several files, rolled while the follower reads.
    const log = await TopicLog.open(dir, { segmentBytes: 2_000, fsync: 'never' });
    const follower = new LogFollower(log.directory, log.shareEnd());
    const seen: Array<{ offset: number; key: string; value: string }> = [];
    let at = 0;
    for (let round = 0; round < 10; round++) {
      await log.append(Array.from({ length: 30 }, (_, i) => message(round * 30 + i)));
      for (;;) {
        const { records, next } = await follower.read(at, 7);
        if (records.length === 0) break;
        seen.push(...records.map(({ offset, key, value }) => ({ offset, key, value })));
        at = next;
      }
    }
    expect(at).to.equal(log.end);
    expect(seen.map((r) => r.value)).to.deep.equal(Array.from({ length: 300 }, (_, i) => message(i).value));
    const fromLog: typeof seen = [];
    for (let from = 0; from < log.end;) {
      const { records, next } = await log.read(from, 1000);
      fromLog.push(...records.map(({ offset, key, value }) => ({ offset, key, value })));
      from = next;
    }
    expect(seen).to.deep.equal(fromLog);
    await follower.close();
    await log.close();
  });

  it('reads nothing past the end the log acknowledged, and wakes when it moves', async () => {
    const dir = await makeTempDir('follow');
    const log = await TopicLog.open(dir, { segmentBytes: 1 << 20, fsync: 'never' });
    await log.append([message(1)]);
    const follower = new LogFollower(log.directory, log.shareEnd());
    const first = await follower.read(0, 10);
    expect(first.records.map((r) => r.value)).to.deep.equal([message(1).value]);
    expect(await follower.read(first.next, 10)).to.deep.equal({ records: [], next: first.next });
    // A whole record in the file that the log has not acknowledged (a write still under way):
    // not delivered while the shared end stays before it.
    const [segment] = (await readdir(log.directory)).filter((n) => n.endsWith('.log'));
    await appendFile(join(log.directory, segment!), encodeRecords([{ key: 'k', value: 'in flight' }]).buf);
    expect(await follower.read(first.next, 10)).to.deep.equal({ records: [], next: first.next });
    await truncate(join(log.directory, segment!), first.next);
    let woke = false;
    const waiting = follower.waitForData(first.next).then(() => (woke = true));
    await new Promise((r) => setTimeout(r, 20));
    expect(woke).to.equal(false);
    await log.append([message(2)]);
    await waiting;
    expect((await follower.read(first.next, 10)).records.map((r) => r.value)).to.deep.equal([message(2).value]);
    await follower.close();
    await log.close();
  });

  it('delivers through subscribeFollowing from a thread of its own, and commits on the bus', async () => {
    const dir = await makeTempDir('follow');
    const bus = await EmbeddedBus.open({ dir, logger, segmentBytes: 4_000 });
    await bus.publish(
      't',
      Array.from({ length: 100 }, (_, i) => message(i)),
    );
    const [at, again] = await Promise.allSettled([bus.follow('t', 'g'), bus.follow('t', 'g')]);
    // Two follows of one group at once: one is refused.
    expect(again.status).to.equal('rejected');
    if (at.status !== 'fulfilled') throw at.reason;
    expect(at.value.start).to.equal(0);
    // A second consumer of the same group in this process is refused, as for subscribe.
    await bus.subscribe({ topic: 't', group: 'g', handler: async () => {} }).then(
      () => expect.fail('a second consumer of g was let in'),
      (err: Error) => expect(err.message).to.match(/already consumes/),
    );
    // The worker reads the files and sends back what it got and what it would commit.
    const worker = new Worker(
      `
      const { parentPort, workerData } = require('node:worker_threads');
      import(workerData.bus).then(({ subscribeFollowing }) => {
        const seen = [];
        const sub = subscribeFollowing(
          { topic: 't', group: 'g', maxBatch: 30, handler: async (batch) => { seen.push(...batch.map((m) => m.value)); } },
          workerData.at,
          async (next) => parentPort.postMessage({ commit: next, seen: seen.slice() }),
          { debug() {}, info() {}, warn() {}, error() {}, child() { return this; } },
        );
        parentPort.on('message', () => sub.stop().then(() => parentPort.postMessage({ stopped: true })));
      });
      `,
      { eval: true, workerData: { bus: new URL('../src/index.js', import.meta.url).href, at: at.value } },
    );
    const commits: Array<{ commit: number; seen: string[] }> = [];
    const more = Array.from({ length: 50 }, (_, i) => message(100 + i));
    await new Promise<void>((resolve, reject) => {
      worker.on('error', reject);
      worker.on('message', (m: { commit?: number; seen?: string[]; stopped?: boolean }) => {
        if (m.stopped) return resolve();
        commits.push(m as { commit: number; seen: string[] });
        void bus.commit('t', 'g', m.commit!);
        if (m.seen!.length === 100) void bus.publish('t', more);
        if (m.seen!.length >= 150) worker.postMessage('stop');
      });
    });
    await worker.terminate();
    bus.unfollow('t', 'g');
    const values = commits[commits.length - 1]!.seen;
    expect(values).to.deep.equal([
      ...Array.from({ length: 100 }, (_, i) => message(i).value),
      ...more.map((m) => m.value),
    ]);
    // Every commit came after the batch it covers, in order; the last is the log's end.
    const offsets = commits.map((c) => c.commit);
    expect(offsets).to.deep.equal([...offsets].sort((a, b) => a - b));
    expect(await bus.lag('t', 'g')).to.equal(0);
    // Unfollowed, the group may consume here again, from where the follower committed.
    const later: DeliveredMessage[] = [];
    const sub = await bus.subscribe({ topic: 't', group: 'g', handler: async (b) => void later.push(...b) });
    await bus.publish('t', [message(999)]);
    while (later.length === 0) await new Promise((r) => setTimeout(r, 10));
    expect(later.map((m) => m.value)).to.deep.equal([message(999).value]);
    await sub.stop();
    // Two subscriptions of one group at once: one is refused, and the group is free once it stops.
    const both = await Promise.allSettled([
      bus.subscribe({ topic: 't', group: 'h', handler: async () => {} }),
      bus.subscribe({ topic: 't', group: 'h', handler: async () => {} }),
    ]);
    expect(both.map((r) => r.status).sort()).to.deep.equal(['fulfilled', 'rejected']);
    await (
      both.find((r) => r.status === 'fulfilled') as PromiseFulfilledResult<{ stop(): Promise<void> }>
    ).value.stop();
    await (await bus.subscribe({ topic: 't', group: 'h', handler: async () => {} })).stop();
    await bus.close();
  });
});
