/** A message as a producer hands it to the bus: the key decides the partition (and so the order). */
export interface OutgoingMessage {
  key: string;
  value: string;
}

/** A message as a consumer receives it. `offset` is opaque outside the implementation. */
export interface DeliveredMessage {
  topic: string;
  partition: number;
  offset: string;
  key: string;
  value: string;
}

export type BatchHandler = (batch: DeliveredMessage[]) => Promise<void>;

export interface SubscribeOptions {
  topic: string;
  /** Consumers of one group share a topic's messages; each group sees every message. */
  group: string;
  handler: BatchHandler;
  /** Upper bound on messages per handler call. */
  maxBatch?: number;
}

export interface Subscription {
  stop(): Promise<void>;
}

/**
 * The one bus interface (CONVENTIONS.md, ports and adapters). Delivery is at least once: a
 * batch's offsets are committed only after its handler resolved, and a handler that throws sees
 * the same batch again after a backoff. Handlers therefore must be idempotent.
 */
export interface Bus {
  readonly kind: 'kafka' | 'embedded';
  /** Resolves only once every message is durably acknowledged (Kafka: acks=all). */
  publish(topic: string, messages: OutgoingMessage[]): Promise<void>;
  subscribe(opts: SubscribeOptions): Promise<Subscription>;
  /** Messages published but not yet committed by `group` (consumer lag), summed over partitions. */
  lag(topic: string, group: string): Promise<number>;
  close(): Promise<void>;
}

/** Topic names, one place. The prefix lets several deployments (or test runs) share a broker. */
export function topicNames(prefix: string) {
  return {
    rawEvents: `${prefix}events.raw`,
    enrichedEvents: `${prefix}events.enriched`,
  } as const;
}
