import { z, EpochMs } from '../zod.js';
import { limitParam, ScopeQuery, WindowQuery } from './common.js';

const Nullable = z.string().nullable();
export const GeoSchema = z
  .object({
    country: Nullable,
    region: Nullable,
    city: Nullable,
    latitude: z.number().nullable(),
    longitude: z.number().nullable(),
  })
  .openapi('Geo');
export const NameVersionSchema = z.object({ name: Nullable, version: Nullable }).openapi('NameVersion');
export const DeviceSchema = z.object({ type: Nullable, vendor: Nullable, model: Nullable }).openapi('Device');
export const UtmSchema = z
  .object({ source: Nullable, medium: Nullable, campaign: Nullable, term: Nullable, content: Nullable })
  .openapi('Utm');

export const RawEventSchema = z
  .object({
    event_id: z.string(),
    project: z.string(),
    origin: z.string(),
    action: z.string(),
    timestamp: EpochMs,
    client_timestamp: EpochMs,
    sent_at: EpochMs.nullable(),
    received_at: EpochMs,
    payload: z.record(z.string(), z.unknown()),
    session_id: z.string().nullable(),
    url: Nullable,
    referrer: Nullable,
    ip: z.string(),
    user_agent: z.string(),
  })
  .openapi('RawEvent');

export const EnrichedEventSchema = RawEventSchema.extend({
  session_id: z.string(),
  geo: GeoSchema,
  browser: NameVersionSchema,
  os: NameVersionSchema,
  device: DeviceSchema,
  bot: z.boolean(),
  path: Nullable,
  query: z.record(z.string(), z.string()),
  utm: UtmSchema,
}).openapi('EnrichedEvent');

export const EventListQuery = ScopeQuery.extend(WindowQuery.shape).extend({ limit: limitParam(100, 1000) });
export const RawEventList = z.object({ events: z.array(RawEventSchema) }).openapi('RawEventList');
export const EnrichedEventList = z.object({ events: z.array(EnrichedEventSchema) }).openapi('EnrichedEventList');
export const ActionList = z
  .object({ actions: z.array(z.object({ action: z.string(), last_seen: EpochMs })) })
  .openapi('ActionList');
