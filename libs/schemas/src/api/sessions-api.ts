import { z, EpochMs } from '../zod.js';
import { DeviceSchema, GeoSchema, NameVersionSchema, UtmSchema } from './events-api.js';
import { limitParam, ScopeQuery, WindowQuery } from './common.js';

export const SessionListQuery = ScopeQuery.extend(WindowQuery.shape).extend({ limit: limitParam(10, 1000) });
export const SessionPath = z.object({ session_id: z.string().min(1).max(256) });

export const SessionList = z
  .object({ sessions: z.array(z.object({ session_id: z.string(), first_event_at: EpochMs, last_event_at: EpochMs, event_count: z.number().int() })) })
  .openapi('SessionList');

export const SessionSummarySchema = z
  .object({
    session_id: z.string(),
    first_event_at: EpochMs,
    last_event_at: EpochMs,
    duration_ms: z.number().int(),
    event_count: z.number().int(),
    actions: z.record(z.string(), z.number().int()),
    entry_url: z.string().nullable(),
    exit_url: z.string().nullable(),
    page_count: z.number().int(),
    referrer: z.string().nullable(),
    utm: UtmSchema,
    browser: NameVersionSchema,
    os: NameVersionSchema,
    device: DeviceSchema,
    geo: GeoSchema,
    attributes: z.record(z.string(), z.unknown()),
    tags: z.array(z.string()),
    classification: z.object({ rule_ids: z.array(z.string()), labels: z.array(z.string()), classified_at: EpochMs }).nullable().openapi({ description: 'The classifier\'s latest verdict; null until the session was classified' }),
    updated_at: EpochMs,
  })
  .openapi('SessionSummary');

export const AttributeMap = z.object({ attributes: z.record(z.string(), z.unknown()) }).openapi('SessionAttributes');
export const TagList = z.object({ tags: z.array(z.object({ tag: z.string(), last_seen: EpochMs })) }).openapi('TagList');
export const TagPath = z.object({ tag: z.string().min(1).max(200) });
export const TagSessionsQuery = ScopeQuery.extend(WindowQuery.shape).extend({ limit: limitParam(100, 1000) });
export const TaggedSessions = z.object({ tag: z.string(), sessions: z.array(z.object({ session_id: z.string(), tagged_at: EpochMs })) }).openapi('TaggedSessions');
