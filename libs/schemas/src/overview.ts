import { z, EpochMs } from './zod.js';

/** One row of a "top N" list in an overview: a name (an action, a path, a country…) and a count. */
export const RankedCount = z.object({ name: z.string(), count: z.number().int() }).openapi('RankedCount');
export type RankedCount = z.infer<typeof RankedCount>;

/** One point of an overview's time series. */
export const SeriesPoint = z
  .object({
    start: EpochMs.openapi({ description: 'Start of the bucket; it lasts bucket_ms' }),
    events: z.number().int(),
    visitors: z.number().int(),
    sessions: z.number().int().openapi({ description: 'Sessions whose last event falls in the bucket' }),
  })
  .openapi('SeriesPoint');
export type SeriesPoint = z.infer<typeof SeriesPoint>;

/**
 * The stored digest of one project over one window (spec: Overview; DESIGN.md, Jobs). Built by an
 * aggregation job from the window's rollups; re-running the window replaces it. Sessions count
 * by last_event_at inside the window, events by their timestamp. Bots are left out.
 */
export const Overview = z
  .object({
    origin: z.string(),
    project: z.string(),
    window_start: EpochMs,
    window_end: EpochMs,
    created_at: EpochMs,
    job_id: z.string().nullable(),
    events: z.number().int(),
    sessions: z.number().int(),
    visitors: z
      .number()
      .int()
      .openapi({ description: "Distinct visitors: (IP as stored, user agent) pairs among the window's events" }),
    bounce_rate: z
      .number()
      .openapi({ description: 'Share of sessions with one page view or fewer, 0 to 1; 0 without sessions' }),
    duration_ms: z.object({ p50: z.number(), p90: z.number(), p99: z.number() }),
    actions: z.array(RankedCount).openapi({ description: 'Events per action, most first' }),
    pages: z.array(RankedCount).openapi({ description: 'Page views per path, most first' }),
    referrers: z.array(RankedCount),
    utm_sources: z.array(RankedCount),
    countries: z.array(RankedCount),
    browsers: z.array(RankedCount),
    devices: z.array(RankedCount),
    tags: z.array(RankedCount).openapi({ description: 'Sessions of the window per standing tag' }),
    bucket_ms: z
      .number()
      .int()
      .positive()
      .openapi({ description: 'Length of each series bucket: 1 min to 1 day, or longer for windows over 200 days' }),
    series: z.array(SeriesPoint).openapi({
      description:
        'Events, visitors and sessions over time: every bucket of the window, oldest first, empty ones as zeros',
    }),
  })
  .openapi('Overview');
export type Overview = z.infer<typeof Overview>;

/** One cell of a transition matrix: from one state to the next within a session. */
export const TransitionCell = z
  .object({
    from: z.string().openapi({ description: "An action, or '$start' before a session's first event" }),
    to: z.string().openapi({ description: "An action, or '$end' after a session's last event" }),
    count: z.number().int(),
    probability: z.number().openapi({ description: 'count over every transition out of `from`' }),
  })
  .openapi('TransitionCell');
export type TransitionCell = z.infer<typeof TransitionCell>;

export const TransitionMatrix = z
  .object({
    origin: z.string(),
    project: z.string(),
    window_start: EpochMs,
    window_end: EpochMs,
    created_at: EpochMs,
    job_id: z.string().nullable(),
    sessions: z.number().int(),
    states: z.array(z.string()),
    transitions: z.array(TransitionCell),
  })
  .openapi('TransitionMatrix');
export type TransitionMatrix = z.infer<typeof TransitionMatrix>;

/** What a notification says, rendered once for every channel kind (libs/notify). */
export interface NotificationMessage {
  /** Email subject, chat headline. */
  subject: string;
  /** Plain text body. */
  text: string;
  /** Markdown body for chat (Slack mrkdwn differs and is derived from it). */
  markdown: string;
  /** HTML body for email. */
  html: string;
}
