import type { Bus } from '@spoor/bus';
import type { Logger } from '@spoor/log';

export interface ConsumedTopic {
  topic: string;
  group: string;
}

export interface GroupLag extends ConsumedTopic {
  lag: number;
}

export interface LagSample {
  /** Messages published but not yet processed, per `topic/group`. */
  lag: Record<string, number>;
  /** The same readings with topic and group apart (/metrics labels them). */
  groups: GroupLag[];
  /** When the values were read (clock ms); null before the first read. */
  sampledAt: number | null;
}

/**
 * Reads the lag of every consumer group of this process in the background, every `everyMs`, so
 * that /healthz and /metrics answer from memory (issue 15: in Kafka mode each read is four admin requests to
 * the broker, and /healthz took 32 ms at p50 when it asked on every call). A failed read keeps
 * the previous values with their older `sampledAt`, so a reader sees how stale they are.
 */
export class LagSampler {
  private sample: LagSample = { lag: {}, groups: [], sampledAt: null };
  private timer: NodeJS.Timeout | null = null;
  private reading: Promise<void> | null = null;

  constructor(
    private readonly bus: Bus,
    private readonly consumed: () => ConsumedTopic[],
    private readonly clock: () => number,
    private readonly everyMs: number,
    private readonly logger: Logger,
  ) {}

  current(): LagSample {
    return this.sample;
  }

  /** One read now (a read already under way is joined, not doubled). */
  refresh(): Promise<void> {
    this.reading ??= this.read().finally(() => { this.reading = null; });
    return this.reading;
  }

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => void this.refresh(), this.everyMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.reading;
  }

  private async read(): Promise<void> {
    const at = this.clock();
    try {
      const groups = await Promise.all(this.consumed().map(async ({ topic, group }) => ({ topic, group, lag: await this.bus.lag(topic, group) })));
      this.sample = { lag: Object.fromEntries(groups.map((g) => [`${g.topic}/${g.group}`, g.lag])), groups, sampledAt: at };
    } catch (err) {
      this.logger.warn('could not read consumer lag; /healthz keeps the last values', { err });
    }
  }
}
