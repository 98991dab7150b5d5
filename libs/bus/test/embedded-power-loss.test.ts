// SPOOR_BUS_FSYNC (issue 16, item 7): what each setting promises when the power goes. A power
// loss is simulated by cutting every segment file back to what the log knew was on the disk
// (`synced`) — the kernel's unsynced pages are gone — and deleting segments created after it;
// then the log is opened again and its records compared with the appends that were answered.
import { expect } from 'chai';
import { readdir, rm, stat, truncate } from 'node:fs/promises';
import { join } from 'node:path';
import { createLogger } from '@spoor/service-log';
import { makeTempDir } from '@spoor/testkit';
import { TopicLog, type FsyncMode } from '../src/embedded/topic-log.js';
import { EmbeddedBus } from '../src/index.js';

const SEGMENT = /^(\d{20})\.log$/;

async function losePower(dir: string, synced: number): Promise<void> {
  for (const name of await readdir(dir)) {
    const m = SEGMENT.exec(name);
    if (!m) continue;
    const base = Number(m[1]);
    if (base > synced || (base === synced && base > 0)) await rm(join(dir, name));
    else {
      const { size } = await stat(join(dir, name));
      if (size > synced - base) await truncate(join(dir, name), synced - base);
    }
  }
}

async function readAll(log: TopicLog): Promise<string[]> {
  const out: string[] = [];
  let at = log.start;
  for (;;) {
    const { records, next } = await log.read(at, 10_000);
    if (records.length === 0) return out;
    out.push(...records.map((r) => r.value));
    at = next;
  }
}

const batch = (from: number, n: number) =>
  Array.from({ length: n }, (_, i) => ({ key: 'k', value: `event-${from + i}-${'x'.repeat(80)}` }));

describe('Embedded log: power loss by SPOOR_BUS_FSYNC', function () {
  this.timeout(30_000);

  async function openLog(dir: string, fsync: FsyncMode, fsyncIntervalMs = 60_000) {
    // Small segments, so the appends roll over several files.
    return TopicLog.open(dir, { segmentBytes: 4096, fsync, fsyncIntervalMs });
  }

  it('always: every answered append survives, across segment rolls, and nothing unanswered is invented', async () => {
    const dir = await makeTempDir('log-power');
    const log = await openLog(dir, 'always');
    const answered: string[] = [];
    for (let i = 0; i < 200; i += 10) {
      await log.append(batch(i, 10));
      answered.push(...batch(i, 10).map((m) => m.value));
      expect(log.synced, 'synced before the append is answered').to.equal(log.end);
    }
    expect((await readdir(dir)).filter((n) => SEGMENT.test(n)).length).to.be.greaterThan(2);
    const synced = log.synced;
    // The process dies with the machine: no close, no final sync.
    await losePower(dir, synced);
    const reopened = await openLog(dir, 'always');
    expect(await readAll(reopened)).to.deep.equal(answered);
    await reopened.close();
  });

  it('interval: what was answered before the last background sync survives; the sync comes within the interval', async () => {
    const dir = await makeTempDir('log-power');
    const log = await openLog(dir, 'interval', 50);
    await log.append(batch(0, 30));
    const before = log.end;
    expect(log.synced, 'not synced before the answer').to.be.lessThan(before);
    for (let i = 0; i < 100 && log.synced < before; i++) await new Promise((r) => setTimeout(r, 10));
    expect(log.synced).to.equal(before);
    // Appended after the sync, then the power goes before the next one: lost, and only that.
    await log.append(batch(30, 5));
    await losePower(dir, log.synced);
    const reopened = await openLog(dir, 'interval', 50);
    expect(await readAll(reopened)).to.deep.equal(batch(0, 30).map((m) => m.value));
    await reopened.close();
    await log.close().catch(() => undefined);
  });

  it('never: nothing is promised past what was on the disk at open; a clean close syncs nothing either', async () => {
    const dir = await makeTempDir('log-power');
    const log = await openLog(dir, 'never');
    await log.append(batch(0, 10));
    expect(log.synced).to.equal(0);
    await log.close();
    expect(log.synced).to.equal(0);
  });

  it("a consumer whose committed offset outlived the log's lost tail resumes at the new end", async () => {
    const dir = await makeTempDir('bus-power');
    const logger = createLogger('test', 'error', () => {});
    const bus = await EmbeddedBus.open({ dir, logger, fsync: 'interval', fsyncIntervalMs: 60_000 });
    const seen: string[] = [];
    await bus.publish('t', batch(0, 20));
    const sub = await bus.subscribe({
      topic: 't',
      group: 'g',
      handler: async (b) => void seen.push(...b.map((m) => m.value)),
    });
    for (let i = 0; i < 200 && seen.length < 20; i++) await new Promise((r) => setTimeout(r, 10));
    await sub.stop();
    // The offsets file reached the disk, the log's 20 records did not (synced at open: empty).
    await losePower(join(dir, 'topics', 't'), 0);
    const again = await EmbeddedBus.open({ dir, logger, fsync: 'interval', fsyncIntervalMs: 60_000 });
    const after: string[] = [];
    const sub2 = await again.subscribe({
      topic: 't',
      group: 'g',
      handler: async (b) => void after.push(...b.map((m) => m.value)),
    });
    await again.publish('t', batch(100, 3));
    for (let i = 0; i < 200 && after.length < 3; i++) await new Promise((r) => setTimeout(r, 10));
    expect(after).to.deep.equal(batch(100, 3).map((m) => m.value));
    await sub2.stop();
    await again.close();
    await bus.close().catch(() => undefined);
  });
});
