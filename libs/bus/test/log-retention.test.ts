// Issue 43, target 1: the embedded log's raw events have a bounded lifetime. Segments roll by
// time as well as size, and a tick deletes what every group consumed, on an idle log too; what
// some group has not consumed stays, whatever its age, and is logged.
import { expect } from 'chai';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createLogger } from '@spoor/service-log';
import { makeTempDir } from '@spoor/testkit';
import { EmbeddedBus, type DeliveredMessage } from '../src/index.js';
import { LogFollower } from '../src/embedded/log-follower.js';
import { TopicLog } from '../src/embedded/topic-log.js';

const HOUR = 3_600_000;
const quiet = createLogger('bus-test', 'error');

/** A clock the test moves forward. */
function testClock(start = Date.now()) {
  let now = start;
  return { now: () => now, advance: (ms: number) => void (now += ms) };
}

async function segmentsOf(dir: string): Promise<string[]> {
  return (await readdir(dir)).filter((n) => n.endsWith('.log')).sort();
}

/** Every byte under the bus' topics: what a look at the disk would find. */
async function bytesOnDisk(dir: string): Promise<string> {
  const topics = join(dir, 'topics');
  let all = '';
  for (const topic of await readdir(topics))
    for (const name of await readdir(join(topics, topic))) all += await readFile(join(topics, topic, name), 'latin1');
  return all;
}

async function until(check: () => Promise<boolean> | boolean, what: string, ms = 5_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** Subscribes `group`, waits until it has `n` messages, stops (committing them). */
async function consume(bus: EmbeddedBus, topic: string, group: string, n: number): Promise<string[]> {
  const seen: DeliveredMessage[] = [];
  const sub = await bus.subscribe({ topic, group, handler: async (b) => void seen.push(...b) });
  await until(() => seen.length >= n, `${group} to read ${n}`);
  await sub.stop();
  return seen.map((m) => m.value);
}

describe('Embedded log retention', function () {
  this.timeout(20_000);

  it('rolls the active segment by time as well as size, and reads across the rolls after a reopen', async () => {
    const dir = await makeTempDir('log-roll');
    const clock = testClock();
    const opts = { segmentBytes: 1 << 20, fsync: 'always' as const, rollMs: HOUR, clock: clock.now };
    const log = await TopicLog.open(dir, opts);
    await log.append([{ key: 'k', value: 'first' }]);
    clock.advance(HOUR - 1);
    await log.append([{ key: 'k', value: 'same segment' }]);
    expect(await segmentsOf(dir)).to.have.length(1);
    clock.advance(1);
    await log.append([{ key: 'k', value: 'an hour after the first' }]);
    expect(await segmentsOf(dir), 'a new segment an hour after the first record').to.have.length(2);
    const end = log.end;
    await log.close();

    const reopened = await TopicLog.open(dir, opts);
    expect(reopened.end).to.equal(end);
    const { records } = await reopened.read(0, 10);
    const rest = await reopened.read(records[records.length - 1]!.offset + records[records.length - 1]!.size, 10);
    expect([...records, ...rest.records].map((r) => r.value)).to.deep.equal([
      'first',
      'same segment',
      'an hour after the first',
    ]);
    await reopened.close();
  });

  it('deletes, on its timer, a consumed segment of an idle log, and keeps working across it', async () => {
    const dir = await makeTempDir('bus-retention');
    const clock = testClock();
    // 4 h of retention: the active segment rolls once an hour old.
    const opts = { dir, logger: quiet, retentionMs: 4 * HOUR, retentionCheckMs: 20, clock: clock.now };
    const bus = await EmbeddedBus.open(opts);
    const topicDir = join(dir, 'topics', 't');
    await bus.publish('t', [
      { key: 'a', value: 'raw 203.0.113.7 one' },
      { key: 'a', value: 'raw 203.0.113.7 two' },
    ]);
    expect(await consume(bus, 't', 'g', 2)).to.deep.equal(['raw 203.0.113.7 one', 'raw 203.0.113.7 two']);
    // Consumed, but in the one (active) segment: a commit alone never deleted it.
    await new Promise((r) => setTimeout(r, 100));
    expect(await bytesOnDisk(dir)).to.contain('203.0.113.7');

    clock.advance(HOUR);
    await until(async () => !(await bytesOnDisk(dir)).includes('203.0.113.7'), 'the timer to delete the segment');
    expect(await segmentsOf(topicDir)).to.have.length(1);

    // Offsets, recovery and followers go on after the deleted segment.
    await bus.publish('t', [{ key: 'a', value: 'after' }]);
    await bus.close();
    const again = await EmbeddedBus.open(opts);
    expect(await again.lag('t', 'g')).to.equal(1);
    const at = await again.follow('t', 'g');
    const follower = new LogFollower(at.dir, at.end);
    expect((await follower.read(at.start, 10)).records.map((r) => r.value)).to.deep.equal(['after']);
    await follower.close();
    again.unfollow('t', 'g');
    expect(await consume(again, 't', 'g', 1)).to.deep.equal(['after']);
    await again.close();
  });

  it('keeps a segment some group has not consumed, whatever its age, says so once, and deletes it once consumed', async () => {
    const dir = await makeTempDir('bus-retention');
    const clock = testClock();
    const lines: string[] = [];
    const logger = createLogger('bus-test', 'warn', (l) => void lines.push(l));
    // No timer of its own here: the test runs the ticks.
    const opts = { dir, logger, retentionMs: 4 * HOUR, retentionCheckMs: 3_600_000, clock: clock.now };
    let bus = await EmbeddedBus.open(opts);
    await bus.publish('t', [{ key: 'a', value: 'early' }]);
    await consume(bus, 't', 'fast', 1);
    await consume(bus, 't', 'slow', 1);
    await bus.publish('t', [{ key: 'a', value: 'unconsumed by slow' }]);
    await consume(bus, 't', 'fast', 1);
    await bus.publish('u', [{ key: 'a', value: 'no group at all' }]);
    // A restart: `slow` has not joined again, its committed offset on the disk still counts.
    await bus.close();
    bus = await EmbeddedBus.open(opts);

    clock.advance(5 * HOUR);
    await bus.expireSegments();
    await bus.expireSegments();
    const disk = await bytesOnDisk(dir);
    expect(disk).to.contain('unconsumed by slow');
    expect(disk).to.contain('no group at all');
    const warnings = lines
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .filter((l) => String(l['msg']).startsWith('bus segment kept past SPOOR_BUS_RETENTION_HOURS'));
    expect(warnings.map((w) => w['topic']).sort(), 'once per segment').to.deep.equal(['t', 'u']);

    expect(await consume(bus, 't', 'slow', 1)).to.deep.equal(['unconsumed by slow']);
    await bus.expireSegments();
    expect(await bytesOnDisk(dir)).not.to.contain('unconsumed by slow');
    await bus.close();
  });
});
