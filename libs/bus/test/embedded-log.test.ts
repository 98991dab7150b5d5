import { expect } from 'chai';
import { appendFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { createLogger } from '@spoor/service-log';
import { makeTempDir } from '@spoor/testkit';
import { EmbeddedBus } from '../src/index.js';
import { TopicLog } from '../src/embedded/topic-log.js';

const logger = createLogger('bus-test', 'error');

describe('EmbeddedBus durability', () => {
  it('keeps acknowledged messages across a reopen', async () => {
    const dir = await makeTempDir('bus');
    const bus = await EmbeddedBus.open({ dir, logger });
    await bus.publish('t', [
      { key: 'a', value: 'one' },
      { key: 'a', value: 'two' },
    ]);
    await bus.close();
    const again = await EmbeddedBus.open({ dir, logger });
    expect(await again.lag('t', 'g')).to.equal(2);
    await again.close();
  });

  it('reads headers back from the files as from memory, beside records written without any', async () => {
    const dir = await makeTempDir('log');
    const log = await TopicLog.open(dir, { segmentBytes: 1 << 20, fsync: 'never' });
    log.holdTail(); // a consumer on this thread: the newest values stay in memory
    const headers = { traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01' };
    await log.append([
      { key: 'k', value: 'before' },
      { key: 'k', value: 'traced', headers },
      { key: 'ключ', value: 'after' },
    ]);
    const fromMemory = (await log.read(0, 10)).records.map((r) => [r.key, r.value, r.headers]);
    await log.close();
    const reopened = await TopicLog.open(dir, { segmentBytes: 1 << 20, fsync: 'never' });
    const fromFiles = (await reopened.read(0, 10)).records.map((r) => [r.key, r.value, r.headers]);
    await reopened.close();
    expect(fromFiles).to.deep.equal([
      ['k', 'before', undefined],
      ['k', 'traced', headers],
      ['ключ', 'after', undefined],
    ]);
    expect(fromMemory).to.deep.equal(fromFiles);
  });

  it("reads each record's own headers back from the files when neighbours carry other ones", async () => {
    const dir = await makeTempDir('log');
    const log = await TopicLog.open(dir, { segmentBytes: 1 << 20, fsync: 'never' });
    const a = { traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01' };
    const b = { traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01', extra: 'x' };
    await log.append([
      { key: 'k', value: '1', headers: a },
      { key: 'k', value: '2', headers: a },
      { key: 'k', value: '3', headers: b },
      { key: 'k', value: '4' },
      { key: 'k', value: '5', headers: a },
    ]);
    await log.close();
    const reopened = await TopicLog.open(dir, { segmentBytes: 1 << 20, fsync: 'never' });
    const { records } = await reopened.read(0, 10);
    await reopened.close();
    expect(records.map((r) => [r.value, r.headers])).to.deep.equal([
      ['1', a],
      ['2', a],
      ['3', b],
      ['4', undefined],
      ['5', a],
    ]);
    expect(records.map((r) => r.offset)).to.deep.equal(
      records.map((_, i) => records.slice(0, i).reduce((sum, r) => sum + r.size, 0)),
    );
  });

  it('cuts a torn tail on recovery and keeps appending after it', async () => {
    const dir = await makeTempDir('log');
    const log = await TopicLog.open(dir, { segmentBytes: 1 << 20, fsync: 'never' });
    await log.append([{ key: 'k', value: 'intact' }]);
    await log.close();
    const [segment] = await readdir(dir);
    await appendFile(join(dir, segment!), Buffer.from([0, 0, 0, 40, 1, 2, 3])); // a half-written record
    const reopened = await TopicLog.open(dir, { segmentBytes: 1 << 20, fsync: 'never' });
    await reopened.append([{ key: 'k', value: 'after' }]);
    const { records } = await reopened.read(0, 10);
    expect(records.map((r) => r.value)).to.deep.equal(['intact', 'after']);
    await reopened.close();
  });

  it('serves the newest records from memory exactly as the files hold them, across segments and batch limits', async () => {
    const dir = await makeTempDir('log');
    const log = await TopicLog.open(dir, { segmentBytes: 2048, fsync: 'never' });
    log.holdTail(); // a consumer on this thread: the newest values stay in memory
    const values = Array.from({ length: 120 }, (_, i) => `${i}:${'é'.repeat(i % 7)}${'y'.repeat(i)}`);
    for (let i = 0; i < values.length; i += 9)
      await log.append(values.slice(i, i + 9).map((value) => ({ key: `k${i}`, value })));
    const walk = async (l: TopicLog) => {
      const pages: Array<{ offsets: number[]; values: string[]; next: number }> = [];
      for (let at = 0; at < l.end;) {
        const { records, next } = await l.read(at, 7, 1500);
        pages.push({ offsets: records.map((r) => r.offset), values: records.map((r) => r.value), next });
        at = next;
      }
      return pages;
    };
    const fromMemory = await walk(log);
    expect(await log.count(0, log.end)).to.equal(values.length);
    await log.close();
    const reopened = await TopicLog.open(dir, { segmentBytes: 2048, fsync: 'never' });
    const fromFiles = await walk(reopened);
    expect(fromMemory.flatMap((p) => p.values)).to.deep.equal(values);
    expect(fromMemory.flatMap((p) => p.offsets)).to.deep.equal(fromFiles.flatMap((p) => p.offsets));
    const before = (pages: number) => fromFiles.slice(0, pages).reduce((n, p) => n + p.values.length, 0);
    expect(await reopened.count(fromFiles[3]!.next, reopened.end)).to.equal(values.length - before(4));
    // A consumer further on, and more appended: counted from what the last count read.
    await reopened.append([
      { key: 'k', value: 'one more' },
      { key: 'k', value: 'and another' },
    ]);
    expect(await reopened.count(fromFiles[6]!.next, reopened.end)).to.equal(values.length - before(7) + 2);
    expect(await reopened.count(0, reopened.end)).to.equal(values.length + 2);
    // Bounds inside the files count only what lies between them, whatever a read returns.
    expect(await reopened.count(fromFiles[1]!.next, fromFiles[2]!.next)).to.equal(fromFiles[2]!.values.length);
    await reopened.close();
  });

  it('reads back from the files what memory no longer holds, and still counts from its index', async () => {
    const dir = await makeTempDir('log');
    const log = await TopicLog.open(dir, { segmentBytes: 4096, fsync: 'never', tailBytes: 600 });
    log.holdTail(); // a consumer on this thread: the newest values stay in memory
    const values = Array.from({ length: 60 }, (_, i) => `${i}:${'z'.repeat(40)}`);
    for (let i = 0; i < values.length; i += 6)
      await log.append(values.slice(i, i + 6).map((value) => ({ key: 'k', value })));
    const read: string[] = [];
    const offsets: number[] = [];
    for (let at = 0; at < log.end;) {
      const { records, next } = await log.read(at, 5);
      read.push(...records.map((r) => r.value));
      offsets.push(at);
      at = next;
    }
    expect(read).to.deep.equal(values);
    expect(await log.count(0, log.end)).to.equal(60);
    expect(await log.count(offsets[3]!, log.end)).to.equal(45);
    await log.close();
  });

  it('rolls segments and deletes the ones every group consumed', async () => {
    const dir = await makeTempDir('bus');
    const bus = await EmbeddedBus.open({ dir, logger, segmentBytes: 4096 });
    const payload = 'x'.repeat(500);
    for (let i = 0; i < 40; i++) await bus.publish('t', [{ key: 'k', value: `${i}:${payload}` }]);
    const before = (await readdir(join(dir, 'topics', 't'))).length;
    expect(before).to.be.greaterThan(3);
    const seen: string[] = [];
    const sub = await bus.subscribe({
      topic: 't',
      group: 'g',
      handler: async (b) => void seen.push(...b.map((m) => m.value)),
    });
    while (seen.length < 40) await new Promise((r) => setTimeout(r, 10));
    await sub.stop();
    const after = (await readdir(join(dir, 'topics', 't'))).length;
    expect(after).to.be.lessThan(before);
    expect(seen.map((v) => Number(v.split(':')[0]))).to.deep.equal(Array.from({ length: 40 }, (_, i) => i));
    await bus.close();
  });
});
