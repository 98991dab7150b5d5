// What the Overview shows (issue 44): range, comparison, filters and goal, read from and written
// to the query string, so that a reload or a shared link reproduces the view.
import type { components } from '@spoor/client';

type StatsQueryRequest = components['schemas']['StatsQueryRequest'];
export type DateRange = NonNullable<StatsQueryRequest['date_range']>;
export type Compare = 'previous_period' | 'year_over_year' | null;

/** The dimensions a panel row filters on (one `is` predicate each). */
export type PanelDimension =
  'page' | 'entry_page' | 'referrer' | 'utm_source' | 'country' | 'browser' | 'device' | 'tag' | 'action';

export interface ViewFilter {
  dimension: PanelDimension;
  value: string;
}

export type Goal = { action: string } | { tag: string };

export interface OverviewView {
  /** A preset of the stats API, or `custom` with `from` and `to` (UTC days, both included). */
  range: string;
  from: string;
  to: string;
  compare: Compare;
  filters: ViewFilter[];
  goal: Goal | null;
}

export const PRESETS: Array<[key: string, label: string]> = [
  ['today', 'Today'],
  ['24h', 'Last 24 hours'],
  ['7d', 'Last 7 days'],
  ['30d', 'Last 30 days'],
  ['month', 'This month'],
  ['6mo', 'Last 6 months'],
  ['12mo', 'Last 12 months'],
];

export const DIMENSION_LABELS: Record<PanelDimension, string> = {
  page: 'Page',
  entry_page: 'Entry page',
  referrer: 'Referrer',
  utm_source: 'UTM source',
  country: 'Country',
  browser: 'Browser',
  device: 'Device',
  tag: 'Tag',
  action: 'Action',
};

const DAY = 86_400_000;
const DATE = /^\d{4}-\d{2}-\d{2}$/;
const isDimension = (d: string): d is PanelDimension => d in DIMENSION_LABELS;

/** A UTC day (`YYYY-MM-DD`) as the epoch ms of its midnight, or NaN. */
const dayStart = (day: string): number => (DATE.test(day) ? Date.parse(`${day}T00:00:00Z`) : NaN);
export const utcDay = (ms: number): string => new Date(ms).toISOString().slice(0, 10);

/** Filters travel as `f=<dimension>,<value>` (the value may hold commas: only the first one splits). */
function parseFilter(raw: string): ViewFilter | null {
  const at = raw.indexOf(',');
  const dimension = raw.slice(0, at);
  return at > 0 && isDimension(dimension) ? { dimension, value: raw.slice(at + 1) } : null;
}

function parseGoal(raw: string | null): Goal | null {
  const m = raw ? /^(action|tag):(.+)$/.exec(raw) : null;
  if (!m) return null;
  return m[1] === 'action' ? { action: m[2]! } : { tag: m[2]! };
}

export const goalKey = (g: Goal | null): string => (!g ? '' : 'action' in g ? `action:${g.action}` : `tag:${g.tag}`);

export function parseView(q: URLSearchParams): OverviewView {
  const from = q.get('from') ?? '';
  const to = q.get('to') ?? '';
  const custom = q.get('range') === 'custom' && dayStart(from) <= dayStart(to);
  const preset = PRESETS.find(([k]) => k === q.get('range'))?.[0] ?? '24h';
  const compare = q.get('compare');
  return {
    range: custom ? 'custom' : preset,
    from: custom ? from : '',
    to: custom ? to : '',
    compare: compare === 'off' ? null : compare === 'year_over_year' ? 'year_over_year' : 'previous_period',
    filters: q
      .getAll('f')
      .map(parseFilter)
      .filter((f): f is ViewFilter => f !== null),
    goal: parseGoal(q.get('goal')),
  };
}

/** The page's path for a view; defaults are left out so that plain links stay short. */
export function viewPath(v: OverviewView): string {
  const q = new URLSearchParams();
  q.set('range', v.range);
  if (v.range === 'custom') {
    q.set('from', v.from);
    q.set('to', v.to);
  }
  if (v.compare !== 'previous_period') q.set('compare', v.compare ?? 'off');
  for (const f of v.filters) q.append('f', `${f.dimension},${f.value}`);
  if (v.goal) q.set('goal', goalKey(v.goal));
  return `/overview?${q}`;
}

/** The stats API's date range: a preset, or the custom days as [first midnight, the midnight after the last). */
export function dateRange(v: OverviewView): DateRange {
  if (v.range !== 'custom') return v.range as DateRange;
  return { start: dayStart(v.from), end: dayStart(v.to) + DAY };
}

/** The view's filters as the stats API takes them; the same dimension twice means either value. */
export function apiFilters(filters: ViewFilter[]): components['schemas']['StatsFilter'][] {
  const byDimension = new Map<PanelDimension, string[]>();
  for (const f of filters) byDimension.set(f.dimension, [...(byDimension.get(f.dimension) ?? []), f.value]);
  return [...byDimension].map(([dimension, values]) => ({ dimension, op: 'is', values }));
}

/** A row's filter replaces any other on its dimension (a panel filtered on one value lists only it). */
export const withFilter = (v: OverviewView, f: ViewFilter): OverviewView => ({
  ...v,
  filters: [...v.filters.filter((x) => x.dimension !== f.dimension), f],
});

export const withoutFilter = (v: OverviewView, i: number): OverviewView => ({
  ...v,
  filters: v.filters.filter((_f, j) => j !== i),
});
