import { rawCopyLifetimeMs } from '@spoor/bus';

/** What a deletion, erasure or retention pass needs to say when the bus' raw copies are gone. */
export interface RawCopies {
  clock: () => number;
  /** SPOOR_BUS_RETENTION_HOURS, in ms. */
  busRetentionMs: number;
}

/**
 * `raw_copies_gone_by` of a deletion or erasure job's result, and of a retention pass' log line
 * (issue 43, docs/data.md "What is stored"): the store's rows go at once, but the raw events
 * they came from stay on the bus (the embedded log's segments, the Kafka topics) until the bus'
 * retention deletes them. In ms, as an export's `expires_at`.
 */
export function rawCopiesGoneBy(deps: RawCopies): number {
  return deps.clock() + rawCopyLifetimeMs(deps.busRetentionMs);
}
