/**
 * Guards: the checks that drop an event instead of enriching it. Each drop has a typed
 * reason that the pipeline counts, as Plausible's `drop_*` steps do.
 */
export const DROP_REASONS = ['invalid_timestamp', 'payload_too_deep'] as const;
export type DropReason = (typeof DROP_REASONS)[number];

/**
 * A timestamp further ahead than this, after ingest's sent_at skew correction, is a broken
 * client clock or a forgery; storing it would put the event (and its session) in the future
 * of every query window. A day leaves room for any real time zone mistake.
 */
export const MAX_FUTURE_MS = 24 * 60 * 60 * 1000;

/**
 * Deeper payloads are dropped: nothing we query reads that deep, and unbounded nesting
 * makes every later recursive walk (rules, ClickHouse JSON, serialisers) a stack risk.
 */
export const MAX_PAYLOAD_DEPTH = 32;

/**
 * `timestamp` is the skew-corrected client time, `reference` when the server received it.
 * Non-integer or negative values can only come from a producer that skipped ingest's schema.
 */
export function checkTimestamp(timestamp: number, reference: number): DropReason | null {
  if (!Number.isSafeInteger(timestamp) || timestamp < 0) return 'invalid_timestamp';
  return timestamp - reference > MAX_FUTURE_MS ? 'invalid_timestamp' : null;
}

/**
 * Nesting depth of a JSON value: 0 for a scalar, 1 for `{}` or `[]`, one more per level of
 * objects or arrays inside. Walks level by level with no recursion (a 10,000-deep payload
 * must not overflow our stack) and stops as soon as `limit` is passed, so a cyclic object
 * handed in by mistake ends too.
 */
export function jsonDepthExceeds(value: unknown, limit: number): boolean {
  let level: object[] = value !== null && typeof value === 'object' ? [value] : [];
  let depth = 0;
  while (level.length > 0) {
    depth += 1;
    if (depth > limit) return true;
    const next: object[] = [];
    for (const container of level) {
      for (const child of Object.values(container)) {
        if (child !== null && typeof child === 'object') next.push(child);
      }
    }
    level = next;
  }
  return false;
}

export function checkPayloadDepth(payload: unknown): DropReason | null {
  return jsonDepthExceeds(payload, MAX_PAYLOAD_DEPTH) ? 'payload_too_deep' : null;
}
