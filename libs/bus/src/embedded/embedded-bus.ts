import { join } from 'node:path';
import type { Logger } from '@spoor/service-log';
import type { Bus, DeliveredMessage, OutgoingMessage, PublishOptions, SubscribeOptions, Subscription } from '../bus.js';
import { DEFAULT_BUS_RETENTION_MS, rollMsOf } from '../bus-retention.js';
import { backoffDelay, sleep } from '../retry-backoff.js';
import { traceIdsOf } from '../trace-context.js';
import { LogFollower } from './log-follower.js';
import { LogRetention, RETENTION_CHECK_MS } from './log-retention.js';
import { OffsetStore } from './offset-store.js';
import { TopicLog, type FsyncMode, type ReadResult } from './topic-log.js';

export interface EmbeddedBusOptions {
  /** Directory holding one folder per topic and the committed offsets. */
  dir: string;
  logger: Logger;
  /** When the log is forced to the disk (TopicLog's FsyncMode); default `interval`. */
  fsync?: FsyncMode;
  fsyncIntervalMs?: number;
  segmentBytes?: number;
  /**
   * SPOOR_BUS_RETENTION_HOURS (issue 43): a consumed raw record is deleted within this long of
   * its write; the active segment rolls at a quarter of it, an hour at most. Default 24 h.
   */
  retentionMs?: number;
  /** How often the retention tick runs (log-retention.ts); default a minute. */
  retentionCheckMs?: number;
  /** Passed in, so tests move time forward without waiting; default Date.now. */
  clock?: () => number;
}

const TOPIC_NAME = /^[A-Za-z0-9._-]{1,200}$/;

/**
 * The bus of the one-process default: a durable log per topic on local disk. Same contract as
 * Kafka (at-least-once, commit after the handler, per-key order), one partition per topic.
 */
export class EmbeddedBus implements Bus {
  readonly kind = 'embedded' as const;
  private readonly logs = new Map<string, Promise<TopicLog>>();
  private readonly subscriptions = new Set<EmbeddedSubscription>();
  /** Each consumer in this process, here (subscribe) or on another thread (follow), by consumerKey. */
  private readonly consumers = new Set<string>();
  private readonly retention: LogRetention;

  private constructor(
    private readonly opts: EmbeddedBusOptions,
    private readonly offsets: OffsetStore,
  ) {
    this.retention = new LogRetention(
      join(opts.dir, 'topics'),
      {
        retentionMs: opts.retentionMs ?? DEFAULT_BUS_RETENTION_MS,
        checkMs: opts.retentionCheckMs ?? RETENTION_CHECK_MS,
        clock: opts.clock ?? Date.now,
        logger: opts.logger,
      },
      (topic) => this.log(topic),
      (topic) => this.consumedBy(topic),
    );
  }

  static async open(opts: EmbeddedBusOptions): Promise<EmbeddedBus> {
    const bus = new EmbeddedBus(opts, await OffsetStore.open(join(opts.dir, 'offsets')));
    bus.retention.start();
    return bus;
  }

  /** The retention tick's work, at once (tests; the timer runs it every retentionCheckMs). */
  expireSegments(): Promise<void> {
    return this.retention.tick();
  }

  /** The lowest offset every group known to `topic` committed; null when none is. */
  private consumedBy(topic: string): number | null {
    const committed = this.offsets.knownGroups(topic);
    return committed.length === 0 ? null : Math.min(...committed);
  }

  /**
   * Not async: an async function keeps its arguments alive across its awaits, and the messages
   * must go once the log framed them, not when the write returns (issue 14).
   */
  publish(topic: string, messages: OutgoingMessage[], opts: PublishOptions = {}): Promise<void> {
    if (messages.length === 0) return Promise.resolve();
    const { timeoutMs } = opts;
    let log: Promise<TopicLog>;
    try {
      log = this.log(topic);
    } catch (err) {
      return Promise.reject(err); // a bad topic name, as a rejection like every other failure
    }
    return log.then((l) => l.append(messages, timeoutMs));
  }

  async subscribe(opts: SubscribeOptions): Promise<Subscription> {
    const { claim, log, start } = await this.join(opts.topic, opts.group);
    const sub = new EmbeddedSubscription(
      opts,
      log,
      (next) => this.commit(opts.topic, opts.group, next),
      start,
      this.opts.logger,
    );
    const release = log.holdTail();
    this.subscriptions.add(sub);
    sub.run();
    return {
      stop: async () => {
        await sub.stop();
        release();
        this.subscriptions.delete(sub);
        this.consumers.delete(claim);
      },
    };
  }

  /**
   * For a consumer on another thread of this process (issue 14): where `group` resumes in
   * `topic`, the topic's folder and its shared end, for a LogFollower there to read the files
   * itself; it commits through commit() and ends with unfollow().
   */
  async follow(topic: string, group: string): Promise<{ dir: string; end: SharedArrayBuffer; start: number }> {
    const { log, start } = await this.join(topic, group);
    return { dir: log.directory, end: log.shareEnd(), start };
  }

  unfollow(topic: string, group: string): void {
    this.consumers.delete(consumerKey(group, topic));
  }

  /** Commits `group`'s offset in `topic` and deletes the segments every group has consumed. */
  async commit(topic: string, group: string, next: number): Promise<void> {
    await this.offsets.commit(group, topic, next);
    const log = await this.log(topic);
    await log.deleteBelow(Math.min(...this.offsets.knownGroups(topic)));
  }

  /**
   * Claims `group`'s place in `topic` (before the first await: a second consumer of the group
   * meanwhile is refused) and finds where it resumes.
   */
  private async join(topic: string, group: string): Promise<{ claim: string; log: TopicLog; start: number }> {
    const claim = consumerKey(group, topic);
    if (this.consumers.has(claim)) throw new Error(`group ${group} already consumes ${topic} in this process`);
    this.consumers.add(claim);
    try {
      const log = await this.log(topic);
      return { claim, log, start: await this.resumeAt(log, topic, group) };
    } catch (err) {
      this.consumers.delete(claim);
      throw err;
    }
  }

  private async resumeAt(log: TopicLog, topic: string, group: string): Promise<number> {
    const start = (await this.offsets.committed(group, topic)) ?? log.start;
    if (start <= log.end) return start;
    // A power loss took the log's unsynced tail but not the offsets file written after it
    // (SPOOR_BUS_FSYNC=interval|never): what was lost had been consumed; go on from the end.
    this.opts.logger.warn('committed offset beyond the end of the log; resuming at its end', {
      topic,
      group,
      committed: start,
      end: log.end,
    });
    return log.end;
  }

  async lag(topic: string, group: string): Promise<number> {
    const log = await this.log(topic);
    const committed = (await this.offsets.committed(group, topic)) ?? log.start;
    if (log.end <= committed) return 0;
    // Offsets are bytes here: count the records between committed and end.
    return log.count(committed, log.end);
  }

  async close(): Promise<void> {
    await this.retention.stop();
    await Promise.all([...this.subscriptions].map((s) => s.stop()));
    this.subscriptions.clear();
    this.consumers.clear();
    for (const log of this.logs.values()) await (await log).close();
    this.logs.clear();
  }

  private log(topic: string): Promise<TopicLog> {
    if (!TOPIC_NAME.test(topic)) throw new Error(`invalid topic name ${JSON.stringify(topic)}`);
    let log = this.logs.get(topic);
    if (!log) {
      const retentionMs = this.opts.retentionMs ?? DEFAULT_BUS_RETENTION_MS;
      log = TopicLog.open(join(this.opts.dir, 'topics', topic), {
        segmentBytes: this.opts.segmentBytes ?? 64 * 1024 * 1024,
        fsync: this.opts.fsync ?? 'interval',
        fsyncIntervalMs: this.opts.fsyncIntervalMs,
        rollMs: rollMsOf(retentionMs),
        clock: this.opts.clock,
      });
      this.logs.set(topic, log);
    }
    return log;
  }
}

const consumerKey = (group: string, topic: string) => `${group}\u0000${topic}`;

/** Where a subscription reads: the log itself, or a LogFollower of it on another thread. */
interface LogSource {
  /** Offset after the last record written. */
  readonly end: number;
  read(from: number, max: number): Promise<ReadResult>;
  waitForData(offset: number): Promise<void>;
  wakeAll(): void;
}

/** One group's consumer of one topic's log: reads, hands batches to the handler, commits in order. */
class EmbeddedSubscription {
  readonly topic: string;
  readonly group: string;
  private stopped = false;
  private loop: Promise<void> = Promise.resolve();

  constructor(
    private readonly opts: SubscribeOptions,
    private readonly log: LogSource,
    private readonly commit: (next: number) => Promise<void>,
    private offset: number,
    private readonly logger: Logger,
  ) {
    this.topic = opts.topic;
    this.group = opts.group;
  }

  run(): void {
    this.loop = this.consume().catch((err) =>
      this.logger.error('embedded consumer stopped', { err, topic: this.topic, group: this.group }),
    );
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.log.wakeAll();
    await this.loop;
  }

  /**
   * Reads ahead up to `inFlight` batches (default 1), hands each to the handler as soon as it
   * is read, and commits their offsets in order as they resolve. A failed batch is delivered
   * again from its first record after a backoff, once the batches after it have settled.
   */
  private async consume(): Promise<void> {
    const depth = Math.max(1, this.opts.inFlight ?? 1);
    const inFlight: InFlightBatch[] = [];
    let readAt = this.offset;
    let failures = 0;
    try {
      while (!this.stopped) {
        if (inFlight.length < depth) {
          const batch = await this.readBatch(readAt, inFlight.length === 0 ? null : inFlight[0]!.outcome);
          if (batch) {
            const { messages, next } = batch;
            // What the log lines need, not the messages: a batch held here until its handler
            // resolved survived the HTTP thread's scavenges (issue 14).
            inFlight.push({
              next,
              count: messages.length,
              traceIds: traceIdsOf(messages),
              outcome: settle(() => this.opts.handler(messages, NO_HEARTBEAT)),
            });
            readAt = next;
            continue;
          }
          if (inFlight.length === 0) {
            // A stop() while the read was under way found no waiter to wake: do not start one.
            if (this.stopped) break;
            await this.log.waitForData(readAt);
            continue;
          }
        }
        const head = inFlight.shift()!;
        const outcome = await head.outcome;
        if (outcome.ok) {
          failures = 0;
          this.logger.debug('batch handled', {
            topic: this.topic,
            group: this.group,
            messages: head.count,
            trace_ids: head.traceIds,
          });
          await this.committed(head.next);
          continue;
        }
        // Later batches were handed over on the assumption that this one would pass: drop them.
        await Promise.all(inFlight.map((b) => b.outcome));
        inFlight.length = 0;
        readAt = this.offset;
        this.logger.warn('handler failed; retrying the batch', {
          err: outcome.err,
          topic: this.topic,
          group: this.group,
          attempt: failures,
          trace_ids: head.traceIds,
        });
        await sleep(backoffDelay(failures++));
      }
    } finally {
      // Stopping: what resolved, in order, is committed; the rest is delivered again next time.
      for (const b of inFlight) {
        if (!(await b.outcome).ok) break;
        await this.committed(b.next);
      }
    }
  }

  /**
   * The next batch from `offset`, or null when none is waiting. A lingering subscription that
   * finds fewer than a quarter of maxBatch waiting waits up to lingerMs for a whole batch — size
   * or time, whichever comes first (issue 41). It looks again every LINGER_STEP_MS meanwhile: a
   * fixed sleep of the whole linger left a pipeline near saturation idle each time its backlog
   * dipped; stopping at a quarter of a batch made batches four times as many at 5,000 events/s.
   * Read ahead, while `inFlight` (the batch being handled) runs, it waits the same way but gives
   * up when that batch settles: a few records that came in meanwhile no longer go on at once as a
   * batch of their own (each paying the fixed costs the linger is there to share, and keeping a
   * batch always in flight under a steady trickle, so that the linger never came), while a load
   * that fills a batch during the one in flight still overlaps the two (issue 14).
   */
  private async readBatch(
    offset: number,
    inFlight: Promise<unknown> | null,
  ): Promise<{ messages: DeliveredMessage[]; next: number } | null> {
    const max = this.opts.maxBatch ?? 1000;
    const lingerMs = this.opts.lingerMs ?? 0;
    let { records, next } = await this.log.read(offset, max);
    if (records.length === 0) return null;
    if (lingerMs > 0 && records.length < max / 4) {
      let settled = false;
      void inFlight?.then(() => (settled = true));
      // Counted by the log's end, not by reading: the records' own size tells how many wait.
      const perRecord = (next - offset) / records.length;
      const waiting = () => (this.log.end - offset) / perRecord;
      const deadline = Date.now() + lingerMs;
      const step = Math.max(5, Math.min(LINGER_STEP_MS, lingerMs / 4));
      for (
        let left = lingerMs;
        left > 0 && !this.stopped && !settled && waiting() < max;
        left = deadline - Date.now()
      ) {
        const pause = sleep(Math.min(step, left));
        await (inFlight ? Promise.race([pause, inFlight]) : pause);
      }
      if (inFlight && waiting() < max / 4) return null;
      ({ records, next } = await this.log.read(offset, max));
    }
    return {
      messages: records.map((r) => ({
        topic: this.topic,
        partition: 0,
        offset: String(r.offset),
        key: r.key,
        value: r.value,
        headers: r.headers,
      })),
      next,
    };
  }

  private async committed(next: number): Promise<void> {
    this.offset = next;
    await this.commit(next);
  }
}

interface InFlightBatch {
  /** The offset after the batch's last record. */
  next: number;
  outcome: Promise<{ ok: true } | { ok: false; err: unknown }>;
  /** How many messages, and the first of their trace ids: for the log lines. */
  count: number;
  traceIds: string[];
}

/** A call's outcome as a value: never rejects, so a batch's failure is seen when its turn comes. */
function settle(call: () => Promise<void>): InFlightBatch['outcome'] {
  let running: Promise<void>;
  try {
    running = Promise.resolve(call());
  } catch (err) {
    running = Promise.reject(err);
  }
  return running.then(
    () => ({ ok: true as const }),
    (err: unknown) => ({ ok: false as const, err }),
  );
}

/** How often a lingering subscription looks whether its batch has come in. */
const LINGER_STEP_MS = 50;

/** One process, no group membership to keep alive. */
const NO_HEARTBEAT = { heartbeat: async () => {} };

/**
 * A subscription, on another thread, to an EmbeddedBus' topic (issue 14): what `follow` gave
 * (the folder, the shared end, where to start) is read by a LogFollower on this thread, and
 * `commit` reaches the bus' offsets. The same loop as a subscription beside the log.
 */
export function subscribeFollowing(
  opts: SubscribeOptions,
  at: { dir: string; end: SharedArrayBuffer; start: number },
  commit: (next: number) => Promise<void>,
  logger: Logger,
): Subscription {
  const follower = new LogFollower(at.dir, at.end);
  const sub = new EmbeddedSubscription(opts, follower, commit, at.start, logger);
  sub.run();
  return {
    stop: async () => {
      await sub.stop();
      await follower.close();
    },
  };
}
