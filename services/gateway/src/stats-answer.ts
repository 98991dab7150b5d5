// Answers a stats query (issue 44; docs/analytics.md, Stats query): resolves the date range, the
// time bucket and the comparison range, gates payload properties behind the DNS check, runs the
// store's query for the range and, for the rows it answered, for the comparison range.
import { createError, errors } from '@spoor/http';
import {
  STATS_LIMITS,
  isVerifiedProject,
  type ProjectRecord,
  type StatsDimension,
  type StatsMetric,
  type StatsPreset,
  type StatsQueryInput,
  type StatsQueryResult,
  type StatsRow,
} from '@spoor/schemas';
import { StatsPatternError, statsKey, type StatsRows, type StatsSpec, type Store, type Window } from '@spoor/store';

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
const BUCKETS: Record<string, number> = { 'time:hour': HOUR_MS, 'time:day': DAY_MS, 'time:week': 7 * DAY_MS };
/** Shares compare by their difference, counts by their relative change. */
const SHARES = new Set<StatsMetric>(['bounce_rate', 'conversion_rate']);

const fault = (loc: Array<string | number>, msg: string) =>
  errors.validation([{ loc: ['body', ...loc], msg, type: 'value_error' }]);

const monthStart = (t: number, back: number) => {
  const d = new Date(t);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() - back, 1);
};

/** A preset's range at `now`, UTC; every preset ends at the end of the current hour, day or month. */
export function presetRange(preset: StatsPreset, now: number): Window {
  const tomorrow = Math.floor(now / DAY_MS) * DAY_MS + DAY_MS;
  const nextHour = Math.floor(now / HOUR_MS) * HOUR_MS + HOUR_MS;
  switch (preset) {
    case 'today':
      return { start: tomorrow - DAY_MS, end: tomorrow };
    case '24h':
      return { start: nextHour - DAY_MS, end: nextHour };
    case '7d':
      return { start: tomorrow - 7 * DAY_MS, end: tomorrow };
    case '30d':
      return { start: tomorrow - 30 * DAY_MS, end: tomorrow };
    case 'month':
      return { start: monthStart(now, 0), end: monthStart(now, -1) };
    case '6mo':
      return { start: monthStart(now, 5), end: monthStart(now, -1) };
    case '12mo':
      return { start: monthStart(now, 11), end: monthStart(now, -1) };
  }
}

/** The comparison range: as long as the range, just before it or a calendar year earlier. */
function compareRange(q: StatsQueryInput, range: Window): Window | null {
  if (q.compare === null) return null;
  const length = range.end - range.start;
  let start = range.start - length;
  if (q.compare === 'year_over_year') {
    const d = new Date(range.start);
    d.setUTCFullYear(d.getUTCFullYear() - 1);
    start = d.getTime();
  }
  if (start < 0) throw fault(['compare'], 'The comparison range would start before 1970');
  return { start, end: start + length };
}

/** `time` picks hours up to two days, days up to 92, weeks beyond. */
function timeBucket(q: StatsQueryInput, range: Window): { dimensions: StatsDimension[]; bucketMs: number | null } {
  const length = range.end - range.start;
  const auto = length <= 2 * DAY_MS ? 'time:hour' : length <= 92 * DAY_MS ? 'time:day' : 'time:week';
  const dimensions = q.dimensions.map((d) => (d === 'time' ? auto : d));
  const at = dimensions.findIndex((d) => d.startsWith('time'));
  if (at < 0) return { dimensions, bucketMs: null };
  const bucketMs = BUCKETS[dimensions[at]!]!;
  if (Math.ceil(length / bucketMs) > STATS_LIMITS.maxBuckets)
    throw fault(
      ['dimensions', at],
      `At most ${STATS_LIMITS.maxBuckets} time buckets: choose a longer one or a shorter range`,
    );
  return { dimensions, bucketMs };
}

/** Payload properties are raw event fields: an unverified domain's answer 403 (issue 42, the DNS gate). */
function requirePayloadReadable(p: ProjectRecord, q: StatsQueryInput): void {
  if (isVerifiedProject(p)) return;
  const named = [
    ...q.dimensions,
    ...q.filters.flatMap((f) => ('and' in f ? f.and : 'or' in f ? f.or : [f])).map((f) => f.dimension),
  ].filter((d) => d.startsWith('payload:'));
  const fields = [...new Set(named.map((d) => `payload.${d.slice('payload:'.length)}`))];
  if (fields.length) throw createError('raw_fields_unverified', 'The stats query', fields.join(', '), p.origin);
}

const change = (metric: StatsMetric, now: number, before: number): number | null =>
  SHARES.has(metric) ? now - before : before === 0 ? null : (now - before) / before;

async function run(store: Store, p: ProjectRecord, spec: StatsSpec): Promise<StatsRows> {
  try {
    return await store.stats.query(p.project_id, spec);
  } catch (err) {
    if (err instanceof StatsPatternError) throw fault(['filters'], `A pattern the engine cannot run: ${err.message}`);
    throw err;
  }
}

export async function answerStats(
  store: Store,
  p: ProjectRecord,
  q: StatsQueryInput,
  now: number,
): Promise<StatsQueryResult> {
  requirePayloadReadable(p, q);
  const range = typeof q.date_range === 'string' ? presetRange(q.date_range, now) : q.date_range;
  const { dimensions, bucketMs } = timeBucket(q, range);
  const timeAt = dimensions.findIndex((d) => d.startsWith('time'));
  const orderBy =
    q.order_by?.map(([name, dir]) => [name === 'time' ? dimensions[timeAt]! : name, dir] as [string, 'asc' | 'desc']) ??
    (timeAt >= 0 ? [[dimensions[timeAt]!, 'asc']] : [[q.metrics[0]!, 'desc']]);
  const spec: StatsSpec = {
    window: range,
    metrics: q.metrics,
    dimensions,
    bucketMs,
    filters: q.filters,
    goal: q.goal,
    orderBy,
    limit: q.limit,
    offset: q.offset,
  };
  const main = await run(store, p, spec);
  const before = compareRange(q, range);
  let compared: Map<string, number[]> | null = null;
  if (before && (main.rows.length > 0 || dimensions.length === 0)) {
    const keys = main.rows.map((r) => statsKey(r.dimensions));
    const other = await run(store, p, {
      ...spec,
      window: before,
      keys: dimensions.length ? keys : undefined,
      limit: Math.max(1, keys.length),
      offset: 0,
    });
    compared = new Map(other.rows.map((r) => [statsKey(r.dimensions), r.metrics]));
  }
  const results: StatsRow[] = main.rows.map((r) => {
    const then = compared?.get(statsKey(r.dimensions)) ?? q.metrics.map(() => 0);
    return {
      dimensions: r.dimensions.map((v, i) => (i === timeAt ? range.start + Number(v) * bucketMs! : v)),
      metrics: r.metrics,
      comparison: compared
        ? { metrics: then, change: r.metrics.map((m, i) => change(q.metrics[i]!, m, then[i]!)) }
        : null,
    };
  });
  return {
    origin: p.origin,
    project: p.project,
    metrics: q.metrics,
    dimensions,
    date_range: range,
    compare_range: before,
    time_bucket_ms: bucketMs,
    timezone: 'UTC',
    results,
    total_rows: main.total,
    limit: q.limit,
    offset: q.offset,
  };
}
