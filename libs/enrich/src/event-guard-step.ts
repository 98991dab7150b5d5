import {
  eventTimeProblem,
  jsonDepthExceeds,
  MAX_PAYLOAD_DEPTH,
  type DropReason as AnyDropReason,
} from '@spoor/schemas';

export { jsonDepthExceeds, MAX_FUTURE_MS, MAX_PAYLOAD_DEPTH, MIN_EVENT_TIMESTAMP } from '@spoor/schemas';

/**
 * Guards: the checks that drop an event instead of enriching it. Each drop has a typed
 * reason from the one catalogue (@spoor/schemas, drop-reasons.ts) that the pipeline counts, as
 * Plausible's `drop_*` steps do. Ingest refuses the same events with a 422 (the limits live in
 * @spoor/schemas), so for events that came through ingest these never fire; they stay for
 * producers that write to the bus directly.
 */
export const GUARD_DROP_REASONS = ['invalid_timestamp', 'payload_too_deep'] as const satisfies readonly AnyDropReason[];
export type GuardDropReason = (typeof GUARD_DROP_REASONS)[number];

/** `timestamp` is the skew-corrected client time, `reference` when the server received it. */
export function checkTimestamp(timestamp: number, reference: number): GuardDropReason | null {
  return eventTimeProblem(timestamp, reference) === null ? null : 'invalid_timestamp';
}

export function checkPayloadDepth(payload: unknown): GuardDropReason | null {
  return jsonDepthExceeds(payload, MAX_PAYLOAD_DEPTH) ? 'payload_too_deep' : null;
}
