import type { Bus } from '@spoor/bus';
import type { Logger } from '@spoor/service-log';

export interface ConsumedTopic {
  topic: string;
  group: string;
}

/** `topic/group`: the key of a reading in LagSample.lag. */
const lagKey = (t: ConsumedTopic) => `${t.topic}/${t.group}`;

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
  private readonly watched: ConsumedTopic[] = [];

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

  /**
   * Reads `target`'s lag too, though this process does not consume it: a service that acts on
   * another's backlog (ingest's backpressure, issue 16). The reader answers the latest reading,
   * 0 before the first; reported in /healthz and /metrics with the rest.
   */
  watch(target: ConsumedTopic): () => number {
    this.watched.push(target);
    const key = lagKey(target);
    return () => this.sample.lag[key] ?? 0;
  }

  /** One read now (a read already under way is joined, not doubled). */
  refresh(): Promise<void> {
    this.reading ??= this.read().finally(() => {
      this.reading = null;
    });
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
      const targets = new Map([...this.consumed(), ...this.watched].map((t) => [lagKey(t), t]));
      const groups = await Promise.all(
        [...targets.values()].map(async ({ topic, group }) => ({
          topic,
          group,
          lag: await this.bus.lag(topic, group),
        })),
      );
      this.sample = { lag: Object.fromEntries(groups.map((g) => [lagKey(g), g.lag])), groups, sampledAt: at };
    } catch (err) {
      this.logger.warn('could not read consumer lag; /healthz keeps the last values', { err });
    }
  }
}
