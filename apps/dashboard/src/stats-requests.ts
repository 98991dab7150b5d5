// The Overview's questions to POST /v1/stats/query (issue 44; docs/analytics.md, Stats query):
// the figures with their comparison, a time series and a top-N per panel, asked in parallel.
import type { components } from '@spoor/client';
import { api, ok } from './api-access.js';
import { apiFilters, dateRange, type OverviewView, type PanelDimension } from './overview-view.js';
import type { Scope } from './project-scope.js';

type StatsQueryRequest = components['schemas']['StatsQueryRequest'];
export type StatsQueryResult = components['schemas']['StatsQueryResult'];
export type StatsMetric = StatsQueryRequest['metrics'][number];

const FIGURE_METRICS: StatsMetric[] = [
  'visitors',
  'sessions',
  'events',
  'pageviews',
  'bounce_rate',
  'visit_duration',
  'views_per_session',
];
const GOAL_METRICS: StatsMetric[] = ['conversions', 'conversion_rate'];
const SERIES_METRICS: StatsMetric[] = ['events', 'sessions', 'visitors'];
/** How many rows each panel lists. */
const PANEL_ROWS = 10;
/** "Visitors now": those with an event in the last five minutes, as the Live page counts them. */
const NOW_WINDOW_MS = 5 * 60_000;

export interface PanelRow {
  name: string;
  visitors: number;
  conversions: number | null;
}

export interface OverviewStats {
  figures: StatsQueryResult;
  series: { times: number[]; values: Record<'events' | 'sessions' | 'visitors', number[]> };
  panels: Map<PanelDimension, PanelRow[]>;
}

type Question = Pick<StatsQueryRequest, 'metrics'> & Partial<Omit<StatsQueryRequest, 'origin' | 'project'>>;
/** A whole question, every defaulted field stated: what an asker sends. */
export type StatsQuestion = Omit<StatsQueryRequest, 'origin' | 'project'>;
/**
 * Where the Overview's questions go: the project's stats query for a member, a share link's
 * stats for anyone holding the link (pages/shared-page.ts; issue 45).
 */
export type StatsAsker = (q: StatsQuestion) => Promise<StatsQueryResult>;

/** A member's asker: POST /v1/stats/query for the project in scope. */
export const projectStats =
  (scope: Scope): StatsAsker =>
  (q) =>
    ok(api().POST('/v1/stats/query', { body: { ...scope, ...q } }));

/**
 * The generated request type lists the fields the server defaults (dimensions, filters, compare,
 * goal, limit, offset) as required, so each question states them all.
 */
function query(ask: StatsAsker, q: Question): Promise<StatsQueryResult> {
  return ask({
    dimensions: [],
    filters: [],
    compare: null,
    goal: null,
    limit: 100,
    offset: 0,
    ...q,
  });
}

/** The view's range, filters and goal, common to every question. */
function base(v: OverviewView): Pick<StatsQueryRequest, 'date_range' | 'filters' | 'goal'> {
  return { date_range: dateRange(v), filters: apiFilters(v.filters), goal: v.goal };
}

/** Buckets without events are left out of the answer: the series puts zeros there. */
function fillSeries(r: StatsQueryResult): OverviewStats['series'] {
  const step = r.time_bucket_ms ?? 3_600_000;
  const times: number[] = [];
  for (let t = r.date_range.start; t < r.date_range.end; t += step) times.push(t);
  const at = new Map(r.results.map((row) => [Number(row.dimensions[0]), row.metrics]));
  const column = (i: number) => times.map((t) => at.get(t)?.[i] ?? 0);
  return { times, values: { events: column(0), sessions: column(1), visitors: column(2) } };
}

async function panel(ask: StatsAsker, v: OverviewView, dimension: PanelDimension): Promise<PanelRow[]> {
  const r = await query(ask, {
    ...base(v),
    metrics: v.goal ? ['visitors', 'conversions'] : ['visitors'],
    dimensions: [dimension],
    limit: PANEL_ROWS,
  });
  return r.results.map((row) => ({
    name: String(row.dimensions[0]),
    visitors: row.metrics[0] ?? 0,
    conversions: v.goal ? (row.metrics[1] ?? 0) : null,
  }));
}

export async function loadOverview(
  ask: StatsAsker,
  v: OverviewView,
  dimensions: PanelDimension[],
): Promise<OverviewStats> {
  const [figures, series, ...lists] = await Promise.all([
    query(ask, {
      ...base(v),
      metrics: v.goal ? [...FIGURE_METRICS, ...GOAL_METRICS] : FIGURE_METRICS,
      compare: v.compare,
    }),
    query(ask, { ...base(v), metrics: SERIES_METRICS, dimensions: ['time'], limit: 1000 }),
    ...dimensions.map((d) => panel(ask, v, d)),
  ]);
  return { figures, series: fillSeries(series), panels: new Map(dimensions.map((d, i) => [d, lists[i]!])) };
}

/** Visitors with an event in the last five minutes, all traffic (no filter), as on the Live page. */
export async function visitorsNow(ask: StatsAsker, now = Date.now()): Promise<number> {
  const r = await query(ask, { metrics: ['visitors'], date_range: { start: now - NOW_WINDOW_MS, end: now + 1 } });
  return r.results[0]?.metrics[0] ?? 0;
}
