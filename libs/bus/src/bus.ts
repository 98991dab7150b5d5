/** A message as a producer hands it to the bus: the key decides the partition (and so the order). */
export interface OutgoingMessage {
  key: string;
  value: string;
  /**
   * Small text headers carried beside the value (Kafka record headers; the embedded log stores
   * them in the record). Spoor uses `traceparent` (W3C Trace Context, issue 19, trace-context.ts).
   */
  headers?: Record<string, string>;
}

/** A message as a consumer receives it. `offset` is opaque outside the implementation. */
export interface DeliveredMessage {
  topic: string;
  partition: number;
  offset: string;
  key: string;
  value: string;
  headers?: Record<string, string>;
}

/** What a handler can do besides returning: long handlers call heartbeat() to keep their claim. */
export interface BatchContext {
  /** Tells the broker this consumer is alive (Kafka: the group heartbeat); cheap, may be called often. */
  heartbeat(): Promise<void>;
}

export interface PublishOptions {
  /**
   * Reject with PublishTimeoutError when the write is not acknowledged within this long (ingest:
   * SPOOR_INGEST_PUBLISH_TIMEOUT_MS; issue 16). Messages still queued then are never written;
   * messages already sent may still be, so the caller must treat the write as "maybe" and retry
   * with the same ids (every consumer deduplicates). Unset: wait as long as the client retries.
   */
  timeoutMs?: number;
}

export type BatchHandler = (batch: DeliveredMessage[], ctx: BatchContext) => Promise<void>;

export interface SubscribeOptions {
  topic: string;
  /** Consumers of one group share a topic's messages; each group sees every message. */
  group: string;
  handler: BatchHandler;
  /** Upper bound on messages per handler call. */
  maxBatch?: number;
  /**
   * When fewer than a quarter of maxBatch are waiting, wait this long for more before handling
   * them (embedded log; Kafka's fetch waits on its own). A handler whose cost is mostly per call
   * (a stage table, a transaction, a summary per session) then runs a few times a second under a
   * steady trickle instead of once per request (issue 14). Default 0.
   */
  lingerMs?: number;
  /**
   * Batches handed to the handler before the oldest one resolved (embedded log; Kafka hands one
   * batch per partition at a time and ignores it). Default 1. Above 1 the handler is called with
   * batch N+1 while N is still running, so it can prepare N+1 while N waits on its store
   * (issue 14). Offsets still commit in order, each only after its own batch and every earlier
   * one resolved. When a batch fails, the bus waits for the later ones to settle, ignores their
   * outcome and delivers again from the failed batch. The handler must therefore keep its
   * effects in batch order: a call must not write anything before every earlier call still in
   * flight resolved, and must reject when one of them rejected.
   */
  inFlight?: number;
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
  publish(topic: string, messages: OutgoingMessage[], opts?: PublishOptions): Promise<void>;
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
    /** Session summaries after each sessionizer write, keyed by session: the classifier's input. */
    sessionUpdates: `${prefix}sessions.updated`,
    /** Rules that newly matched a session: for notifications and webhooks. */
    ruleMatches: `${prefix}rules.matched`,
    /** Job commands, one topic per kind, keyed by job id. */
    jobs: (kind: string) => `${prefix}jobs.${kind}`,
  } as const;
}
