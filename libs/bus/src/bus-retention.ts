// How long raw events stay on the bus (issue 43; docs/data.md, "What is stored"). One setting,
// SPOOR_BUS_RETENTION_HOURS, bounds both the embedded log and the Kafka topics Spoor creates.

/** Default SPOOR_BUS_RETENTION_HOURS, in ms. */
export const DEFAULT_BUS_RETENTION_MS = 24 * 3_600_000;

/**
 * When a segment is closed (the embedded log's active segment; Kafka's `segment.ms`): a quarter
 * of the retention, hourly at most. Only a closed segment is deleted (Kafka also deletes the
 * active one once its newest record passed `retention.ms`, but a topic that gets a record now and
 * then keeps one segment for `segment.ms`, 7 days by default, and its oldest record with it).
 */
export const rollMsOf = (retentionMs: number): number => Math.min(retentionMs / 4, 3_600_000);

/**
 * Slack for the deleters' own period: the embedded log's retention tick (a minute), Kafka's
 * `log.retention.check.interval.ms` (5 minutes by default).
 */
const CHECK_SLACK_MS = 5 * 60_000;

/**
 * The longest a raw record the pipeline consumed stays on the bus after it was written: its
 * segment closes within `rollMsOf`, and Kafka deletes a closed segment `retention.ms` after its
 * newest record (the embedded log at once, once every group consumed it). What a deletion,
 * erasure or retention pass removes from the store is gone from the bus this long after it,
 * at the latest (`raw_copies_gone_by`), as long as the consumers keep up: a record some group
 * has not consumed stays on the embedded log until it has.
 */
export const rawCopyLifetimeMs = (retentionMs: number): number => retentionMs + rollMsOf(retentionMs) + CHECK_SLACK_MS;
