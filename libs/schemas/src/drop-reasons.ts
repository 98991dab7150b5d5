/**
 * Why an event did not make it all the way: one catalogue for every service (issue 20;
 * Plausible's `drop_reason` is the model). Each service counts its own reasons; /metrics shows
 * them as `spoor_events_dropped_total{service,reason}` and /v1/status/health sums them under
 * `dropped`, with these names.
 */
export const DROP_REASONS = {
  invalid: 'ingest refused it with a 4xx: schema, size, timestamp or payload limits, an unknown or foreign project',
  rate_limited: 'ingest refused it with 429 (the client may retry)',
  unavailable: 'ingest could not put it on the bus and answered 503 (the client retries)',
  malformed: 'a bus message that is not an event Spoor wrote, or one that could not be enriched',
  duplicate: 'an event_id seen before: stored once, counted once',
  invalid_timestamp: 'more than 24 h in the future (a producer writing to the bus directly)',
  payload_too_deep: 'payload nesting beyond 32 levels (a producer writing to the bus directly)',
  bot: 'a bot: stored as raw and enriched, kept out of sessions',
  repeat: 'already counted in its session (a replay after a crash, or a late client retry)',
} as const;

export type DropReason = keyof typeof DROP_REASONS;
export type DropCounts = Partial<Record<DropReason, number>>;
export const DROP_REASON_NAMES = Object.keys(DROP_REASONS) as DropReason[];
