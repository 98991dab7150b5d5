import { uuidv7 } from './event-id.js';
import { createError, errors, parseOr422 } from '@spoor/http';
import {
  eventTimeProblem,
  IngestEvent,
  jsonDepthExceeds,
  MAX_EVENT_BYTES,
  MAX_PAYLOAD_DEPTH,
  MIN_EVENT_TIMESTAMP,
  normalizeOrigin,
  type EventTimeProblem,
  type ProjectRecord,
  type RawEvent,
  wellFormedIngestEvent,
} from '@spoor/schemas';
import type { ProjectResolver } from './project-resolver.js';

/** What ingest knows about the HTTP request besides the body. */
export interface RequestFacts {
  /** The browser's Origin header; absent for server-side callers (and "null" origins). */
  originHeader: string | undefined;
  ip: string;
  userAgent: string;
  /** The request body's size, when known: a body within MAX_EVENT_BYTES holds no event over it. */
  bodyBytes?: number | undefined;
  /** The request's W3C `traceparent` header, continued on its messages (issue 19). */
  traceparent?: string | undefined;
}

/** Validates each event, or throws the 413/422 naming the event's position in the body. */
export function validateEvents(
  items: unknown[],
  prefix: (i: number) => Array<string | number>,
  bodyBytes?: number,
): IngestEvent[] {
  // Serialising each event to measure it was 3 % of ingest's CPU; most bodies are smaller than one event may be.
  const measure = bodyBytes === undefined || bodyBytes > MAX_EVENT_BYTES;
  return items.map((item, i) => {
    if (measure && Buffer.byteLength(JSON.stringify(item) ?? '') > MAX_EVENT_BYTES) {
      throw createError('event_too_large', prefix(i).join('.') || 'body', MAX_EVENT_BYTES);
    }
    const event = wellFormedIngestEvent(item) ?? parseOr422(IngestEvent, item, 'body', prefix(i));
    if (jsonDepthExceeds(event.payload, MAX_PAYLOAD_DEPTH)) {
      throw errors.validation([
        {
          loc: ['body', ...prefix(i), 'payload'],
          msg: `Payload nested deeper than ${MAX_PAYLOAD_DEPTH} levels`,
          type: 'value_error',
        },
      ]);
    }
    return event;
  });
}

const TIME_MESSAGES: Record<EventTimeProblem, string> = {
  before_min: `is before 2000-01-01T00:00:00Z (${MIN_EVENT_TIMESTAMP}); send milliseconds since the Unix epoch, not seconds`,
  too_far_ahead: "is more than a day ahead of the server's clock",
  not_an_integer: 'is not an integer number of milliseconds',
};

/**
 * Refuses an event whose time (after the sent_at correction) the enricher could not store, so an
 * event answered with 200 is never dropped later (issue 13). Names `sent_at` when the client's own
 * timestamp was fine and only the correction put it out of range.
 */
export function checkEventTime(event: IngestEvent, stamped: RawEvent, path: Array<string | number>): void {
  const problem = eventTimeProblem(stamped.timestamp, stamped.received_at);
  if (problem === null) return;
  const ownProblem = eventTimeProblem(event.timestamp, stamped.received_at);
  const field = ownProblem === null && event.sent_at !== undefined ? 'sent_at' : 'timestamp';
  const msg =
    field === 'sent_at'
      ? `timestamp corrected by sent_at ${TIME_MESSAGES[problem]}`
      : `timestamp ${TIME_MESSAGES[ownProblem ?? problem]}`;
  throw errors.validation([{ loc: ['body', ...path, field], msg, type: 'value_error', input: event[field] }]);
}

/**
 * Finds the project an event belongs to. The origin comes from the body, else the Origin
 * header; a browser Origin that differs from the project's origin is refused (403). Without
 * any origin, a project name held by exactly one origin is enough (server-side senders).
 */
export async function resolveProject(
  event: IngestEvent,
  facts: RequestFacts,
  projects: ProjectResolver,
): Promise<ProjectRecord> {
  const header = facts.originHeader ? normalizeOrigin(facts.originHeader) : null;
  const given = event.origin !== undefined ? normalizeOrigin(event.origin) : null;
  if (event.origin !== undefined && given === null)
    throw createError('unknown_project', `Unknown project ${event.project} at origin ${event.origin}`);
  const origin = given ?? header;
  if (origin === null) {
    const candidates = await projects.findByName(event.project);
    if (candidates.length === 1) return candidates[0]!;
    throw createError(
      'unknown_project',
      candidates.length === 0
        ? `Unknown project ${event.project}`
        : `Project ${event.project} exists at several origins; send origin`,
    );
  }
  const found = await projects.find(origin, event.project);
  if (!found) {
    // A page on another site posting into a known project is an origin mismatch, not a miss.
    if (given === null && (await projects.findByName(event.project)).length > 0)
      throw createError('origin_mismatch', origin);
    throw createError('unknown_project', `Unknown project ${event.project} at origin ${origin}`);
  }
  if (header !== null && header !== found.origin) throw createError('origin_mismatch', header);
  return found;
}

/** Smaller differences between sent_at and arrival are taken for latency, not skew. */
export const MIN_SKEW_MS = 2_000;

/** Stamps what the server knows: id, arrival time, IP, user agent, clock-skew correction. */
export function stampEvent(
  event: IngestEvent,
  project: ProjectRecord,
  facts: RequestFacts,
  receivedAt: number,
): RawEvent {
  // sent_at is the client's clock when it sent the batch: the difference to our clock is the
  // client's skew, and the same offset applies to when the event happened. A difference under
  // MIN_SKEW_MS is what network latency alone explains; correcting it would only add the
  // latency's jitter, and reorder a visitor's events across batches (a beacon's slow delivery
  // would move a page's last event after the next page's first).
  const measured = event.sent_at !== undefined ? receivedAt - event.sent_at : 0;
  const skew = Math.abs(measured) < MIN_SKEW_MS ? 0 : measured;
  return {
    event_id: event.event_id ?? uuidv7(receivedAt),
    project_id: project.project_id,
    project: project.project,
    origin: project.origin,
    action: event.action,
    timestamp: event.timestamp + skew,
    client_timestamp: event.timestamp,
    sent_at: event.sent_at ?? null,
    received_at: receivedAt,
    payload: event.payload,
    session_id: event.session_id ?? null,
    url: event.url ?? null,
    referrer: event.referrer ?? null,
    ip: facts.ip,
    user_agent: facts.userAgent,
  };
}

/** Partition key: one session's events (explicit or derived) stay on one partition, in order. */
export function partitionKey(e: RawEvent): string {
  return e.session_id !== null ? `${e.project_id}:s:${e.session_id}` : `${e.project_id}:d:${e.ip}|${e.user_agent}`;
}
