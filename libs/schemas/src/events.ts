import { z, registry, EpochMs, MAX_EPOCH_MS } from './zod.js';

export const MAX_EVENT_BYTES = 32 * 1024;
export const MAX_BODY_BYTES = 1024 * 1024;
export const MAX_BATCH_EVENTS = 500;

const ShortText = (max: number) => z.string().min(1).max(max);

/**
 * Length limits of an event's text fields: the schema's (zod counts code points) and the fast
 * check's (which counts UTF-16 units, never fewer: what it takes, zod takes; a longer string goes
 * to zod).
 */
const TEXT_MAX = { project: 200, action: 200, id: 128, url: 4096, origin: 512 } as const;

/** The body of `POST /v1/event` (DESIGN.md, Ingestion). */
export const IngestEvent = z
  .object({
    project: ShortText(TEXT_MAX.project).openapi({
      example: 'acme/web',
      description: 'Project identifier, a slash-separated path',
    }),
    action: ShortText(TEXT_MAX.action).openapi({ example: 'click' }),
    timestamp: EpochMs,
    payload: z
      .record(z.string(), z.unknown())
      .default({})
      .openapi({ description: 'Free-form event data (a JSON object)' }),
    session_id: ShortText(TEXT_MAX.id).optional(),
    event_id: ShortText(TEXT_MAX.id)
      .optional()
      .openapi({ description: 'Deduplication key: an event_id is stored once per project' }),
    url: z.string().max(TEXT_MAX.url).optional(),
    referrer: z.string().max(TEXT_MAX.url).optional(),
    origin: z
      .string()
      .max(TEXT_MAX.origin)
      .optional()
      .openapi({ description: 'Origin of the project; defaults to the Origin header' }),
    sent_at: EpochMs.optional().openapi({ description: 'Client clock when the event was sent; corrects clock skew' }),
  })
  .openapi('IngestEvent');
export type IngestEvent = z.infer<typeof IngestEvent>;

const OPTIONAL_TEXT = [
  ['session_id', 1, TEXT_MAX.id],
  ['event_id', 1, TEXT_MAX.id],
  ['url', 0, TEXT_MAX.url],
  ['referrer', 0, TEXT_MAX.url],
  ['origin', 0, TEXT_MAX.origin],
] as const;

const text = (v: unknown, min: number, max: number): v is string =>
  typeof v === 'string' && v.length >= min && v.length <= max;
const epochMs = (v: unknown): v is number =>
  Number.isSafeInteger(v) && (v as number) >= 0 && (v as number) <= MAX_EPOCH_MS;
const plainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && Object.getPrototypeOf(v) === Object.prototype;

/**
 * `IngestEvent.parse(item)` for the event a tracker sends, without zod: the same value when the
 * item is well formed, null for anything else (zod then names the problem). zod built ~4.6 KB of
 * objects and took ~4 µs per event, a third of ingest's allocations (issue 14). Like zod, it keeps
 * the known fields and drops the rest, and gives an absent payload a fresh `{}`; a payload with an
 * own `__proto__` key (which zod's copy drops) goes to zod.
 */
export function wellFormedIngestEvent(item: unknown): IngestEvent | null {
  if (!plainObject(item)) return null;
  const { project, action, timestamp, payload, sent_at } = item;
  if (!text(project, 1, TEXT_MAX.project) || !text(action, 1, TEXT_MAX.action) || !epochMs(timestamp)) return null;
  if (sent_at !== undefined && !epochMs(sent_at)) return null;
  if (payload !== undefined && (!plainObject(payload) || Object.prototype.hasOwnProperty.call(payload, '__proto__')))
    return null;
  const event: IngestEvent = { project, action, timestamp, payload: payload ?? {} };
  for (const [key, min, max] of OPTIONAL_TEXT) {
    const v = item[key];
    if (v === undefined) continue;
    if (!text(v, min, max)) return null;
    event[key] = v;
  }
  if (sent_at !== undefined) event.sent_at = sent_at;
  return event;
}

export const IngestBatch = z
  .object({ events: z.array(z.unknown()).min(1).max(MAX_BATCH_EVENTS) })
  .openapi('IngestBatch');

export const IngestAccepted = z
  .object({ accepted: z.number().int(), event_ids: z.array(z.string()) })
  .openapi('IngestAccepted');

/** An event as ingest stamps it and puts it on the bus: the raw record of what arrived. */
export interface RawEvent {
  event_id: string;
  project_id: string;
  project: string;
  origin: string;
  action: string;
  /** Client timestamp corrected for clock skew (sent_at), ms. */
  timestamp: number;
  /** The timestamp exactly as the client sent it. */
  client_timestamp: number;
  sent_at: number | null;
  received_at: number;
  payload: Record<string, unknown>;
  session_id: string | null;
  url: string | null;
  referrer: string | null;
  ip: string;
  user_agent: string;
}

export interface Geo {
  country: string | null;
  region: string | null;
  city: string | null;
  latitude: number | null;
  longitude: number | null;
}
export interface NameVersion {
  name: string | null;
  version: string | null;
}
export interface Device {
  type: string | null;
  vendor: string | null;
  model: string | null;
}
export interface Utm {
  source: string | null;
  medium: string | null;
  campaign: string | null;
  term: string | null;
  content: string | null;
}

/** The raw fields plus what the enricher adds (DESIGN.md, Ingestion). `ip` follows SPOOR_IP_MODE. */
export interface EnrichedEvent extends Omit<RawEvent, 'session_id'> {
  session_id: string;
  geo: Geo;
  browser: NameVersion;
  os: NameVersion;
  device: Device;
  bot: boolean;
  path: string | null;
  query: Record<string, string>;
  utm: Utm;
}

registry.register('IngestEvent', IngestEvent);
