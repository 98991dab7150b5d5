// The stats query (issue 44; docs/analytics.md, Stats query): metrics over a date range, broken
// down by dimensions, filtered, compared with an earlier period, in the spirit of Plausible's
// Stats API v2. One request answers the figures, a time series or a top-N list.
import { z, EpochMs } from '../zod.js';
import { Origin, ProjectName } from './common.js';

const DAY_MS = 86_400_000;

export const STATS_LIMITS = {
  /** A custom range spans at most this (a year and a bit: `12mo` with a comparison a year back). */
  maxRangeMs: 400 * DAY_MS,
  maxDimensions: 3,
  /** Predicates in all the filters together. */
  maxPredicates: 20,
  maxValues: 50,
  maxValueLength: 500,
  maxPatternLength: 200,
  maxLimit: 1000,
  maxOffset: 100_000,
  /** A time dimension splits the range into at most this many buckets. */
  maxBuckets: 2000,
} as const;

export const STATS_METRICS = [
  'visitors',
  'sessions',
  'events',
  'pageviews',
  'bounce_rate',
  'visit_duration',
  'views_per_session',
  'conversions',
  'conversion_rate',
] as const;
export type StatsMetric = (typeof STATS_METRICS)[number];

/** Dimensions read from each session's row (its entry, its referrer, its browser…). */
export const SESSION_DIMENSIONS = [
  'entry_page',
  'exit_page',
  'referrer',
  'utm_source',
  'utm_medium',
  'utm_campaign',
  'utm_term',
  'utm_content',
  'country',
  'region',
  'city',
  'browser',
  'os',
  'device',
  'tag',
] as const;
/** Dimensions read from each event; `payload:<path>` is one too. */
export const EVENT_DIMENSIONS = ['page', 'action'] as const;
export const TIME_DIMENSIONS = ['time', 'time:hour', 'time:day', 'time:week'] as const;
export const STATS_PRESETS = ['today', '24h', '7d', '30d', 'month', '6mo', '12mo'] as const;
export type StatsPreset = (typeof STATS_PRESETS)[number];

const PAYLOAD_DIMENSION = /^payload:[^.\s][^\s]{0,199}$/;

const FilterDimension = z
  .union([z.enum(SESSION_DIMENSIONS), z.enum(EVENT_DIMENSIONS), z.string().regex(PAYLOAD_DIMENSION)])
  .openapi({ description: 'Any dimension but time; `payload:<dot path>` a payload property' });
export const StatsDimension = z.union([FilterDimension, z.enum(TIME_DIMENSIONS)]).openapi('StatsDimension', {
  description:
    'time (bucket chosen from the range), time:hour, time:day, time:week; page, action, payload:<dot path> (per event); entry_page, exit_page, referrer, utm_*, country, region, city, browser, os, device, tag (per session)',
});
export type StatsDimension = z.infer<typeof StatsDimension>;

/** Patterns run on RE2 in both engines: no look-around or back-references, and JS must parse them. */
function patternIssue(p: string): string | null {
  if (p.length > STATS_LIMITS.maxPatternLength)
    return `A pattern is at most ${STATS_LIMITS.maxPatternLength} characters`;
  if (/\(\?<|\(\?[=!]|\\[1-9kc]/.test(p))
    return 'Look-around, back-references, (?<name>…) and \\c are not supported (RE2): use (?P<name>…)';
  const counts = [...p.matchAll(/\{(\d+)(?:,(\d*))?\}/g)].flatMap((m) => [m[1], m[2]]).filter(Boolean);
  if (counts.some((n) => Number(n) > 1000)) return 'A repetition is at most {1000} (RE2)';
  try {
    new RegExp(p, 'u');
    return null;
  } catch {
    return 'Not a valid regular expression';
  }
}

export const StatsPredicate = z
  .object({
    dimension: FilterDimension,
    op: z.enum(['is', 'is_not', 'contains', 'matches']).openapi({
      description:
        'is: equals one of the values; is_not: the opposite of is (no value counts as not); contains: holds one of them (case-sensitive); matches: an RE2 regular expression matches part of it',
    }),
    values: z.array(z.string().max(STATS_LIMITS.maxValueLength)).min(1).max(STATS_LIMITS.maxValues),
  })
  .strict()
  .superRefine((f, ctx) => {
    if (f.op !== 'matches') return;
    f.values.forEach((v, i) => {
      const msg = patternIssue(v);
      if (msg) ctx.addIssue({ code: 'custom', message: msg, path: ['values', i], params: { type: 'value_error' } });
    });
  })
  .openapi('StatsPredicate');
export type StatsPredicate = z.infer<typeof StatsPredicate>;

const Predicates = z.array(StatsPredicate).min(1).max(STATS_LIMITS.maxPredicates);
export const StatsFilter = z
  .union([StatsPredicate, z.object({ and: Predicates }).strict(), z.object({ or: Predicates }).strict()])
  .openapi('StatsFilter', { description: 'A predicate, or {"and": [predicates]} or {"or": [predicates]}' });
export type StatsFilter = z.infer<typeof StatsFilter>;

export const StatsGoal = z
  .union([
    z.object({ action: z.string().min(1).max(200) }).strict(),
    z.object({ tag: z.string().min(1).max(200) }).strict(),
  ])
  .openapi('StatsGoal', {
    description: 'A session converts when it has an event of this action, or carries this tag (standing)',
  });
export type StatsGoal = z.infer<typeof StatsGoal>;

export const StatsDateRange = z
  .union([
    z.enum(STATS_PRESETS),
    z.object({ start: EpochMs, end: EpochMs.openapi({ description: 'Exclusive' }) }).strict(),
  ])
  .openapi('StatsDateRange', {
    description:
      'A preset (UTC: today, 24h, 7d and 30d end at the next midnight or hour, month, 6mo, 12mo are calendar months) or {start, end} in ms, end exclusive, at most 400 days',
  });

const predicateCount = (filters: StatsFilter[]) =>
  filters.reduce((n, f) => n + ('and' in f ? f.and.length : 'or' in f ? f.or.length : 1), 0);

const issue = (ctx: z.RefinementCtx, path: Array<string | number>, message: string) =>
  ctx.addIssue({ code: 'custom', message, path, params: { type: 'value_error' } });

/** The stats query's fields, without its checks across fields (refineStatsQuery): what a shared link's query omits from. */
export const StatsQueryFields = z
  .object({
    origin: Origin,
    project: ProjectName,
    metrics: z.array(z.enum(STATS_METRICS)).min(1).max(STATS_METRICS.length),
    dimensions: z.array(StatsDimension).max(STATS_LIMITS.maxDimensions).default([]),
    filters: z.array(StatsFilter).max(STATS_LIMITS.maxPredicates).default([]).openapi({ description: 'All must hold' }),
    date_range: StatsDateRange.default('7d'),
    compare: z.enum(['previous_period', 'year_over_year']).nullable().default(null),
    goal: StatsGoal.nullable().default(null).openapi({ description: 'Needed by conversions and conversion_rate' }),
    order_by: z
      .array(z.tuple([z.string().min(1).max(210), z.enum(['asc', 'desc'])]))
      .max(4)
      .optional()
      .openapi({
        description:
          'Pairs of a requested metric or dimension and a direction; default the first time dimension ascending, else the first metric descending; ties by the dimensions ascending',
      }),
    limit: z.number().int().min(1).max(STATS_LIMITS.maxLimit).default(100),
    offset: z.number().int().min(0).max(STATS_LIMITS.maxOffset).default(0),
  })
  .strict();

type StatsQueryShape = Omit<z.infer<typeof StatsQueryFields>, 'origin' | 'project'>;

/** The checks across fields of a stats query (repeats, goals, order, range), shared with the shared links' query (share-api.ts). */
export function refineStatsQuery(q: StatsQueryShape, ctx: z.RefinementCtx): void {
  const seen = new Set<string>();
  q.metrics.forEach((m, i) => {
    if (seen.has(m)) issue(ctx, ['metrics', i], `${m} is asked twice`);
    seen.add(m);
    if ((m === 'conversions' || m === 'conversion_rate') && q.goal === null)
      issue(ctx, ['metrics', i], `${m} needs a goal`);
  });
  const dims = new Set<string>();
  let times = 0;
  q.dimensions.forEach((d, i) => {
    if (dims.has(d)) issue(ctx, ['dimensions', i], `${d} is asked twice`);
    dims.add(d);
    if (d.startsWith('time') && ++times > 1) issue(ctx, ['dimensions', i], 'One time dimension at most');
  });
  if (predicateCount(q.filters) > STATS_LIMITS.maxPredicates)
    issue(ctx, ['filters'], `At most ${STATS_LIMITS.maxPredicates} predicates in all`);
  q.order_by?.forEach(([name], i) => {
    if (!seen.has(name) && !dims.has(name))
      issue(ctx, ['order_by', i, 0], `${name} is neither a requested metric nor a requested dimension`);
  });
  if (typeof q.date_range === 'object') {
    const { start, end } = q.date_range;
    if (end <= start) issue(ctx, ['date_range', 'end'], 'end must be after start');
    else if (end - start > STATS_LIMITS.maxRangeMs)
      issue(ctx, ['date_range', 'end'], `The range spans at most ${STATS_LIMITS.maxRangeMs / DAY_MS} days`);
  }
}

export const StatsQueryRequest = StatsQueryFields.superRefine(refineStatsQuery).openapi('StatsQueryRequest');
export type StatsQueryInput = z.infer<typeof StatsQueryRequest>;

const MetricValues = z.array(z.number()).openapi({ description: 'In the order of the request’s metrics' });
const Range = z.object({ start: EpochMs, end: EpochMs });

export const StatsRow = z
  .object({
    dimensions: z.array(z.union([z.string(), z.number()])).openapi({
      description: 'In the order of the request’s dimensions; a time dimension gives its bucket’s start (ms)',
    }),
    metrics: MetricValues,
    comparison: z
      .object({
        metrics: MetricValues,
        change: z.array(z.number().nullable()).openapi({
          description:
            'Per metric: the relative change (0.25 is +25 %), null over 0; for bounce_rate and conversion_rate the difference of the two shares',
        }),
      })
      .nullable()
      .openapi({ description: "The same row in the comparison range (a time bucket: the same bucket's index)" }),
  })
  .openapi('StatsRow');
export type StatsRow = z.infer<typeof StatsRow>;

export const StatsQueryResult = z
  .object({
    origin: z.string(),
    project: z.string(),
    metrics: z.array(z.enum(STATS_METRICS)),
    dimensions: z.array(z.string()),
    date_range: Range,
    compare_range: Range.nullable(),
    time_bucket_ms: z
      .number()
      .int()
      .nullable()
      .openapi({ description: 'The length of a time dimension’s buckets, counted from the range’s start' }),
    timezone: z.literal('UTC'),
    results: z.array(StatsRow),
    total_rows: z.number().int().openapi({ description: 'Rows there are before limit and offset' }),
    limit: z.number().int(),
    offset: z.number().int(),
  })
  .openapi('StatsQueryResult');
export type StatsQueryResult = z.infer<typeof StatsQueryResult>;
