import { z, EpochMs } from '../zod.js';
import { DeviceSchema, GeoSchema, NameVersionSchema, UtmSchema } from './events-api.js';
import { limitParam, ScopeQuery, WindowQuery } from './common.js';

/** What GET /v1/sessions can add to each listed session (issue 15: the dashboard's list in one request). */
export const SESSION_LIST_INCLUDES = ['summary', 'tags', 'classification'] as const;
export type SessionListInclude = (typeof SESSION_LIST_INCLUDES)[number];

const SessionListIncludes = z
  .preprocess(
    (v) => (typeof v === 'string' ? v.split(',').filter((x) => x !== '') : v),
    z.array(z.enum(SESSION_LIST_INCLUDES)).max(SESSION_LIST_INCLUDES.length),
  )
  .optional()
  .openapi({
    type: 'string',
    description:
      'Comma-separated: `tags` and `classification` add those fields to each session, `summary` the whole summary (tags and classification included), as GET /v1/sessions/{session_id} answers it',
    example: 'tags,classification',
  });

export const SessionListQuery = ScopeQuery.extend(WindowQuery.shape).extend({
  limit: limitParam(10, 1000),
  include: SessionListIncludes,
});
export const SessionPath = z.object({ session_id: z.string().min(1).max(256) });

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
    classification: z
      .object({ rule_ids: z.array(z.string()), labels: z.array(z.string()), classified_at: EpochMs })
      .nullable()
      .openapi({ description: "The classifier's latest verdict; null until the session was classified" }),
    updated_at: EpochMs,
  })
  .openapi('SessionSummary');

const SessionListEntry = SessionSummarySchema.partial().required({
  session_id: true,
  first_event_at: true,
  last_event_at: true,
  event_count: true,
});

export const SessionList = z.object({ sessions: z.array(SessionListEntry) }).openapi('SessionList', {
  description: 'Each session with its identifier, times and event count; more fields as `include` asks',
});

export const AttributeMap = z.object({ attributes: z.record(z.string(), z.unknown()) }).openapi('SessionAttributes');
export const TagList = z
  .object({ tags: z.array(z.object({ tag: z.string(), last_seen: EpochMs })) })
  .openapi('TagList');
export const TagPath = z.object({ tag: z.string().min(1).max(200) });
export const TagSessionsQuery = ScopeQuery.extend(WindowQuery.shape).extend({ limit: limitParam(100, 1000) });
export const TaggedSessions = z
  .object({ tag: z.string(), sessions: z.array(z.object({ session_id: z.string(), tagged_at: EpochMs })) })
  .openapi('TaggedSessions');
