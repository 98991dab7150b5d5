// The live view (issue 18; docs/analytics.md, Live view): GET /v1/live answers Server-Sent
// Events, each `snapshot` event's data one LiveSnapshot.
import { z, EpochMs } from '../zod.js';
import { ScopeQuery } from './common.js';

/** One computation per tick per project, shared by every viewer: these are fixed, not per request. */
export const LIVE_LIMITS = {
  /** A snapshot every 2 s. */
  intervalMs: 2000,
  /** Active: an event in the last 5 minutes. */
  windowMs: 5 * 60_000,
  topPages: 10,
  latestEvents: 20,
  /** A comment line when nothing else was sent for this long, for proxies that close quiet streams. */
  heartbeatMs: 15_000,
  /** The `retry:` an EventSource waits before reconnecting (across a gateway restart). */
  retryMs: 3000,
} as const;

export const LiveQuery = ScopeQuery;

const nullableText = z.string().nullable();

export const LiveEventSchema = z
  .object({
    event_id: z.string(),
    action: z.string(),
    path: nullableText,
    timestamp: EpochMs,
    session_id: z.string(),
    browser: nullableText.openapi({ description: 'Browser name, when enrichment found one' }),
    os: nullableText,
    device: nullableText.openapi({ description: 'Device type (desktop when the user agent names none)' }),
    country: nullableText.openapi({ description: 'ISO country code from the geo database' }),
  })
  .openapi('LiveEvent', { description: 'One of the newest events; never the IP or the user agent' });

export const LiveSnapshotSchema = z
  .object({
    origin: z.string(),
    project: z.string(),
    at: EpochMs.openapi({ description: 'When the snapshot was computed' }),
    window_ms: z.number().int().openapi({ description: 'Active means an event within this many ms before `at`' }),
    interval_ms: z.number().int().openapi({ description: 'The next snapshot follows after about this many ms' }),
    visitors: z.number().int().openapi({ description: 'Sessions with an event in the window (bots left out)' }),
    pages: z
      .array(z.object({ path: z.string(), visitors: z.number().int() }))
      .openapi({ description: 'Active sessions by the path of their newest event, most first (top 10)' }),
    events: z
      .array(LiveEventSchema)
      .openapi({ description: 'The newest events of the window, newest first (20 at most)' }),
  })
  .openapi('LiveSnapshot');
export type LiveSnapshot = z.infer<typeof LiveSnapshotSchema>;
