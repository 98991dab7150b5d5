import { readdir } from 'node:fs/promises';
import type { Logger } from '@spoor/service-log';
import type { TopicLog } from './topic-log.js';

export interface LogRetentionOptions {
  /** SPOOR_BUS_RETENTION_HOURS: how long a consumed raw record may stay on the disk at most. */
  retentionMs: number;
  /** How often the tick runs: a readdir and a stat-free look at each open log. */
  checkMs: number;
  clock: () => number;
  logger: Logger;
}

/** How often the retention tick runs unless told: cheap, and small beside an hour's roll. */
export const RETENTION_CHECK_MS = 60_000;

/**
 * The embedded log's lifetime bound (issue 43, docs/data.md "What is stored"). A commit deletes
 * the closed segments every group consumed, but a quiet log never closed its one segment, and a
 * log nobody commits to never deleted anything: a small site kept months of raw events, client
 * IPs included, after deletions, erasures and retention had removed them from the store. Every
 * `checkMs` this rolls each topic's active segment once it is a quarter of the retention old
 * (TopicLog.expire) and deletes what every group consumed, on an idle log too. A segment some
 * group has not consumed is kept whatever its age — dropping it would lose events the pipeline
 * never stored — and is logged once.
 */
export class LogRetention {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | null = null;
  private stopped = false;
  /** Segments already reported as kept past the retention, by topic and base offset. */
  private readonly warned = new Set<string>();

  constructor(
    private readonly topicsDir: string,
    private readonly opts: LogRetentionOptions,
    private readonly logOf: (topic: string) => Promise<TopicLog>,
    /** The lowest offset every group known to the topic committed; null when none is known. */
    private readonly consumedOf: (topic: string) => number | null,
  ) {}

  start(): void {
    this.timer = setInterval(() => void this.tick(), this.opts.checkMs).unref();
  }

  /** One pass over every topic folder under the bus, open in this process or not (a topic no one uses any more too). */
  tick(): Promise<void> {
    if (!this.running && !this.stopped)
      this.running = this.pass()
        .catch((err: unknown) => this.opts.logger.warn('bus retention pass failed', { err }))
        .finally(() => (this.running = null));
    return this.running ?? Promise.resolve();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    await this.running;
  }

  private async pass(): Promise<void> {
    for (const topic of await this.topics()) {
      if (this.stopped) return;
      let log: TopicLog;
      try {
        log = await this.logOf(topic);
      } catch {
        continue; // a folder that is no topic of the bus (its name is not a topic name)
      }
      const kept = await log.expire(this.consumedOf(topic), this.opts.retentionMs);
      for (const { base, newest } of kept) {
        const key = `${topic}\u0000${base}`;
        if (this.warned.has(key)) continue;
        this.warned.add(key);
        this.opts.logger.warn('bus segment kept past SPOOR_BUS_RETENTION_HOURS: not every group consumed it', {
          topic,
          segment: base,
          newest_record_at: new Date(newest).toISOString(),
        });
      }
    }
  }

  private async topics(): Promise<string[]> {
    try {
      return (await readdir(this.topicsDir, { withFileTypes: true })).filter((d) => d.isDirectory()).map((d) => d.name);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw err;
    }
  }
}
