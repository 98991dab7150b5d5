import { z, registry, EpochMs } from './zod.js';

export const MAX_EVENT_BYTES = 32 * 1024;
export const MAX_BODY_BYTES = 1024 * 1024;
export const MAX_BATCH_EVENTS = 500;

const ShortText = (max: number) => z.string().min(1).max(max);

/** The body of `POST /v1/event` (DESIGN.md, Ingestion). */
export const IngestEvent = z
  .object({
    project: ShortText(200).openapi({ example: 'acme/web', description: 'Project identifier, a slash-separated path' }),
    action: ShortText(200).openapi({ example: 'click' }),
    timestamp: EpochMs,
    payload: z
      .record(z.string(), z.unknown())
      .default({})
      .openapi({ description: 'Free-form event data (a JSON object)' }),
    session_id: ShortText(128).optional(),
    event_id: ShortText(128)
      .optional()
      .openapi({ description: 'Deduplication key: an event_id is stored once per project' }),
    url: z.string().max(4096).optional(),
    referrer: z.string().max(4096).optional(),
    origin: z
      .string()
      .max(512)
      .optional()
      .openapi({ description: 'Origin of the project; defaults to the Origin header' }),
    sent_at: EpochMs.optional().openapi({ description: 'Client clock when the event was sent; corrects clock skew' }),
  })
  .openapi('IngestEvent');
export type IngestEvent = z.infer<typeof IngestEvent>;

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
