// W3C Trace Context (https://www.w3.org/TR/trace-context/) as far as Spoor uses it (issue 19):
// ingest gives every accepted request a `traceparent` — the client's trace continued when it
// sent a valid one, else a new trace — and puts it on each message of the request as a header;
// the enricher passes it on to the enriched message; each consumer's batch log lines list the
// trace ids of the batch. An operator can so follow one request's events across processes.
import { randomUUID } from 'node:crypto';
import type { DeliveredMessage } from './bus.js';

export const TRACEPARENT = 'traceparent';

// version 00 - 32 hex trace id - 16 hex parent id - 2 hex flags; all-zero ids are invalid.
const VALID = /^00-(?!0{32})([0-9a-f]{32})-(?!0{16})[0-9a-f]{16}-([0-9a-f]{2})$/;

/**
 * The traceparent for work done on behalf of a request: the caller's trace id and flags with a
 * new span id when `incoming` is a valid version-00 header, a new sampled trace otherwise.
 */
export function continueTrace(incoming: string | undefined): string {
  const span = randomHex16();
  const match = incoming ? VALID.exec(incoming.trim().toLowerCase()) : null;
  if (match) return `00-${match[1]}-${span}-${match[2]}`;
  const u = randomUUID();
  return `00-${u.slice(0, 8)}${u.slice(9, 13)}${u.slice(14, 18)}${u.slice(19, 23)}${u.slice(24)}-${span}-01`;
}

/**
 * 16 random hex digits from a v4 UUID (Node draws those from a cached entropy pool): about 0.1 µs,
 * where randomBytes() cost several µs per request on ingest's path.
 */
function randomHex16(): string {
  const u = randomUUID();
  return `${u.slice(0, 8)}${u.slice(9, 13)}${u.slice(19, 23)}`;
}

/** The trace id of a traceparent header, or null when it is none. */
export function traceIdOf(traceparent: string | undefined): string | null {
  return traceparent ? (VALID.exec(traceparent)?.[1] ?? null) : null;
}

/** The distinct trace ids a batch carries, at most `max` of them (for its log lines). */
export function traceIdsOf(batch: readonly DeliveredMessage[], max = 10): string[] {
  const ids = new Set<string>();
  for (const m of batch) {
    const id = traceIdOf(m.headers?.[TRACEPARENT]);
    if (id) ids.add(id);
    if (ids.size >= max) break;
  }
  return [...ids];
}
