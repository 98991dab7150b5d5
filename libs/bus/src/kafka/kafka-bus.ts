import { Kafka, logLevel, type Admin, type ConfigResourceTypes, type Consumer, type Producer } from 'kafkajs';
import type { Logger } from '@spoor/service-log';
import type { Bus, OutgoingMessage, PublishOptions, SubscribeOptions, Subscription } from '../bus.js';
import { DEFAULT_BUS_RETENTION_MS, rollMsOf } from '../bus-retention.js';
import { GroupCommit, PublishTimeoutError } from '../group-commit.js';
import { runKafkaConsumer } from './kafka-consumer.js';
import { checkKafkaAccess, kafkaSecurity, type KafkaAccess } from './kafka-access.js';
import './request-queue-fix.js';
import { backoffDelay, sleep } from '../retry-backoff.js';

/** `tls` and `sasl` (KafkaAccess): SPOOR_KAFKA_TLS* and SPOOR_KAFKA_SASL_* (issue 46). */
export interface KafkaBusOptions extends KafkaAccess {
  clientId: string;
  logger: Logger;
  /**
   * Partitions of topics this bus creates; one session's events stay on one (keyed). It caps how
   * many copies of a consumer share a topic: a copy beyond it gets no partition and idles.
   */
  partitions?: number;
  /** Replicas of topics this bus creates; unset: the broker's `default.replication.factor`. */
  replicationFactor?: number;
  /**
   * `retention.ms` of topics this bus creates (SPOOR_BUS_RETENTION_HOURS, issue 43): the raw
   * events' client IPs must not outlive a deletion or an erasure by the broker's default (7 days,
   * or whatever it was set to). Unset: 24 h.
   */
  retentionMs?: number;
}

/** What a lingering consumer's fetch waits for at most (about 1,000 events of ~1 KiB). */
const FETCH_MIN_BYTES = 1 << 20;

interface Addressed extends OutgoingMessage {
  topic: string;
}

/** The production bus: kafkajs, acks from all in-sync replicas, topics created on first use. */
export class KafkaBus implements Bus {
  readonly kind = 'kafka' as const;
  private readonly kafka: Kafka;
  private readonly admin: Admin;
  private readonly producer: Producer;
  private readonly writer: GroupCommit<Addressed>;
  private readonly ensured = new Map<string, Promise<void>>();
  private readonly consumers = new Set<Consumer>();

  private constructor(private readonly opts: KafkaBusOptions) {
    this.kafka = new Kafka({
      clientId: opts.clientId,
      brokers: opts.brokers,
      ...kafkaSecurity(opts),
      logLevel: logLevel.WARN,
      // kafkajs logs retriable conditions (a coordinator still loading, a rebalance) as errors
      // and retries them itself; what it cannot recover from surfaces as a rejected call.
      logCreator:
        () =>
        ({ log }) =>
          opts.logger.warn(String(log.message), { ...log, namespace: log.namespace }),
      retry: { retries: 8, initialRetryTime: 100, maxRetryTime: 5000 },
    });
    this.admin = this.kafka.admin();
    // Not kafkajs' idempotent mode: it allows one request in flight, which caps throughput.
    // Duplicates from producer retries are harmless: every consumer dedupes by event_id.
    this.producer = this.kafka.producer({ allowAutoTopicCreation: false });
    this.writer = new GroupCommit((items) => this.send(items), 5000);
  }

  /**
   * Fails at once, naming the setting, where Kafka refuses the credentials or the TLS settings
   * (checkKafkaAccess); a broker that does not answer yet gets kafkajs' retries (about 15 s).
   */
  static async connect(opts: KafkaBusOptions): Promise<KafkaBus> {
    await checkKafkaAccess(opts);
    const bus = new KafkaBus(opts);
    try {
      await bus.admin.connect();
      await bus.producer.connect();
    } catch (err) {
      await bus.close().catch(() => undefined);
      throw new Error(
        `could not connect to Kafka at ${opts.brokers.join(',')} (SPOOR_KAFKA_BROKERS): ${(err as Error).message}`,
        {
          cause: err,
        },
      );
    }
    return bus;
  }

  async publish(topic: string, messages: OutgoingMessage[], opts: PublishOptions = {}): Promise<void> {
    if (messages.length === 0) return;
    const { timeoutMs } = opts;
    const started = Date.now();
    // The topic is created once per process; only a first publish during an outage waits here.
    await (timeoutMs === undefined ? this.ensureTopic(topic) : withTimeout(this.ensureTopic(topic), timeoutMs));
    const left = timeoutMs === undefined ? undefined : Math.max(1, timeoutMs - (Date.now() - started));
    await this.writer.add(
      messages.map((m) => ({ ...m, topic })),
      left,
    );
  }

  async subscribe(opts: SubscribeOptions): Promise<Subscription> {
    await this.ensureTopic(opts.topic);
    const linger = opts.lingerMs ?? 0;
    const consumer = this.kafka.consumer({
      groupId: opts.group,
      sessionTimeout: 10_000,
      // Three beats per session timeout are enough; each costs a request to the broker, and a
      // process runs a dozen consumers (issue 41, idle CPU).
      heartbeatInterval: 3_000,
      rebalanceTimeout: 20_000,
      // A lingering consumer (issue 41) lets the broker hold each fetch until a batch's worth has
      // arrived or the linger passed, instead of answering as soon as one message is there: one
      // batch per linger under a trickle. Bounded by 1 s either way: a disconnect waits for the
      // fetch under way, and at kafkajs' 5 s default stopping a process with a dozen idle
      // consumers took 20 s and more (issue 16, graceful shutdown).
      minBytes: linger > 0 ? FETCH_MIN_BYTES : 1,
      maxWaitTimeInMs: linger > 0 ? Math.min(linger, 1_000) : 1_000,
      maxBytesPerPartition: 4 * 1024 * 1024,
      retry: { retries: 10 },
    });
    this.consumers.add(consumer);
    await runKafkaConsumer(consumer, opts, this.opts.logger);
    return {
      stop: async () => {
        this.consumers.delete(consumer);
        await consumer.disconnect();
      },
    };
  }

  async lag(topic: string, group: string): Promise<number> {
    // Asking a broker for the offsets of a topic nobody created yet raced its creation by the
    // first publish, and that publish then failed for as long as the reads went on
    // ("This server does not host this topic-partition"; ingest alone, issue 16's backpressure test).
    await this.ensureTopic(topic);
    const [ends, committed] = await Promise.all([
      this.admin.fetchTopicOffsets(topic),
      this.admin.fetchOffsets({ groupId: group, topics: [topic] }),
    ]);
    const done = new Map(committed[0]?.partitions.map((p) => [p.partition, Number(p.offset)]) ?? []);
    return ends.reduce((sum, p) => {
      const at = done.get(p.partition) ?? -1;
      const low = Number(p.low);
      return sum + Math.max(0, Number(p.high) - (at < 0 ? low : at));
    }, 0);
  }

  async close(): Promise<void> {
    await Promise.all([...this.consumers].map((c) => c.disconnect()));
    this.consumers.clear();
    await this.producer.disconnect();
    await this.admin.disconnect();
  }

  /**
   * One produce request per ~MAX_REQUEST_BYTES, in order (a key's messages stay in order). The
   * broker refuses a partition's record batch over `message.max.bytes` (1 MiB by default) with
   * MESSAGE_TOO_LARGE, which kafkajs does not retry: a consumer passing on a large slice (the
   * enricher, up to 5,000 events, after a backlog: a rebalance, a store outage) then failed the
   * same slice forever (issue 16, found by test/faults/rebalance.test.ts).
   */
  private async send(items: Addressed[]): Promise<void> {
    let start = 0;
    while (start < items.length) {
      let end = start;
      let bytes = 0;
      while (end < items.length) {
        const size = messageBytes(items[end]!);
        if (end > start && bytes + size > MAX_REQUEST_BYTES) break;
        bytes += size;
        end++;
      }
      await this.sendRequest(items.slice(start, end));
      start = end;
    }
  }

  private async sendRequest(items: Addressed[]): Promise<void> {
    const byTopic = new Map<string, OutgoingMessage[]>();
    for (const { topic, key, value, headers } of items) {
      let list = byTopic.get(topic);
      if (!list) byTopic.set(topic, (list = []));
      list.push(headers ? { key, value, headers } : { key, value });
    }
    await this.producer.sendBatch({
      acks: -1,
      topicMessages: [...byTopic].map(([topic, messages]) => ({ topic, messages })),
    });
  }

  /**
   * Creates the topic with the configured partitions and replication (SPOOR_KAFKA_PARTITIONS,
   * SPOOR_KAFKA_REPLICATION_FACTOR). A topic that exists keeps its own: adding partitions moves
   * keys to other partitions, which breaks one session's order while both hold its events, so
   * that stays an operator's step (deploy/k8s/README.md). A mismatch is logged once, and so is
   * a `retention.ms` longer than SPOOR_BUS_RETENTION_HOURS (issue 43): shortening a topic's
   * retention is the operator's call too (`kafka-configs --alter`), the warning says where the
   * documented bound does not hold.
   */
  private ensureTopic(topic: string): Promise<void> {
    let done = this.ensured.get(topic);
    if (!done) {
      done = this.createTopic(topic, this.opts.partitions ?? 4);
      done.catch(() => this.ensured.delete(topic));
      this.ensured.set(topic, done);
    }
    return done;
  }

  /**
   * createTopics, and the partition check of a topic that existed, tried again on failure.
   * Processes starting together create the same topics at once (a deployment's consumers, the
   * worker's job topics): the broker then answers the leader check, or the metadata of a topic
   * another request just created, with UNKNOWN_TOPIC_OR_PARTITION ("This server does not host
   * this topic-partition"), which kafkajs' own wait does not retry, and a service failed to start
   * (test suite, bench:scale). A later attempt finds the topic whole.
   */
  private async createTopic(topic: string, numPartitions: number): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      try {
        const created = await this.admin.createTopics({
          topics: [
            {
              topic,
              numPartitions,
              replicationFactor: this.opts.replicationFactor ?? -1,
              // segment.ms too: a quiet topic's segment would otherwise stay open (and undeletable) for 7 days.
              configEntries: [
                { name: 'retention.ms', value: String(this.retentionMs) },
                { name: 'segment.ms', value: String(rollMsOf(this.retentionMs)) },
              ],
            },
          ],
          waitForLeaders: true,
        });
        if (!created) {
          await this.checkPartitions(topic, numPartitions);
          await this.checkRetention(topic);
        }
        return;
      } catch (err) {
        if (attempt >= CREATE_TOPIC_ATTEMPTS - 1) throw err;
        this.opts.logger.warn('creating a topic failed; trying again', { topic, attempt, err });
        await sleep(backoffDelay(attempt));
      }
    }
  }

  private get retentionMs(): number {
    return this.opts.retentionMs ?? DEFAULT_BUS_RETENTION_MS;
  }

  /**
   * A topic that exists keeps its retention; one longer than SPOOR_BUS_RETENTION_HOURS is logged.
   * A broker that will not describe it (no DescribeConfigs permission) is logged too, and the
   * topic used all the same: the check is for the operator, not a condition of the bus.
   */
  private async checkRetention(topic: string): Promise<void> {
    let resources;
    try {
      ({ resources } = await this.admin.describeConfigs({
        resources: [{ type: TOPIC_RESOURCE, name: topic, configNames: ['retention.ms'] }],
        includeSynonyms: false,
      }));
    } catch (err) {
      this.opts.logger.warn("could not read the topic's retention.ms", { topic, err });
      return;
    }
    const entry = resources[0]?.configEntries.find((e) => e.configName === 'retention.ms');
    const actual = retentionOf(entry?.configValue);
    if (actual !== null && actual > this.retentionMs) {
      this.opts.logger.warn('topic keeps raw events longer than SPOOR_BUS_RETENTION_HOURS; it is kept', {
        topic,
        retention_ms: entry!.configValue,
        configured_ms: this.retentionMs,
      });
    }
  }

  /** A topic that exists keeps its partitions; a count other than the configured one is logged. */
  private async checkPartitions(topic: string, numPartitions: number): Promise<void> {
    const meta = await this.admin.fetchTopicMetadata({ topics: [topic] });
    const actual = meta.topics[0]?.partitions.length ?? 0;
    if (actual !== numPartitions) {
      this.opts.logger.warn('topic exists with another partition count; it is kept', {
        topic,
        partitions: actual,
        configured: numPartitions,
      });
    }
  }
}

/**
 * kafkajs' ConfigResourceTypes.TOPIC: kafkajs is CommonJS, and Node finds no named export of that
 * enum for an ES module to import.
 */
const TOPIC_RESOURCE = 2 as ConfigResourceTypes;

/** `retention.ms` of a topic as the broker answers it; -1 (keep for ever) as Infinity. */
function retentionOf(value: string | undefined): number | null {
  if (value === undefined || !/^-?\d+$/.test(value)) return null;
  const ms = Number(value);
  return ms < 0 ? Infinity : ms;
}

/** Tries of createTopics before a topic's creation fails the caller (about 10 s with the back-off). */
const CREATE_TOPIC_ATTEMPTS = 8;

/**
 * Bytes of keys and values per produce request: below the broker's default `message.max.bytes`
 * (1 MiB) for one partition's batch even when every message of the request goes to one partition,
 * with room for record overhead (~70 bytes a record).
 */
const MAX_REQUEST_BYTES = 768 * 1024;
const messageBytes = (m: OutgoingMessage) => Buffer.byteLength(m.value) + Buffer.byteLength(m.key) + 80;

function withTimeout<T>(work: Promise<T>, timeoutMs: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new PublishTimeoutError(timeoutMs)), timeoutMs);
    timer.unref();
  });
  return Promise.race([work, expired]).finally(() => clearTimeout(timer));
}
