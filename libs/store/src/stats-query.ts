// The stats query (issue 44; docs/analytics.md, Stats query): one plan for both engines. Event
// metrics (events, pageviews, visitors) count the range's events, session metrics the sessions
// whose last event falls in it, as the stored overview does; each side is grouped by the
// dimensions, the two joined on them, ordered and cut in SQL. An engine gives its dialect: how a
// value is bound, how a table is read (ClickHouse: FINAL), its functions.
import {
  EVENT_DIMENSIONS,
  SESSION_DIMENSIONS,
  type StatsDimension,
  type StatsFilter,
  type StatsGoal,
  type StatsMetric,
  type StatsPredicate,
} from '@spoor/schemas';
import { PAGE_VIEW_SQL } from './analytics-row.js';
import { checkLimit, toFloatOrNull } from './column-values.js';
import { HOUR_MS, splitWindow } from './rollup-hours.js';
import type { Window } from './store.js';

export interface StatsSpec {
  window: Window;
  metrics: StatsMetric[];
  /** `time` already resolved to `time:<unit>` by the caller, whose bucket is bucketMs. */
  dimensions: StatsDimension[];
  bucketMs: number | null;
  filters: StatsFilter[];
  goal: StatsGoal | null;
  /** Requested metric or dimension names; ties are broken by every dimension ascending. */
  orderBy: Array<[string, 'asc' | 'desc']>;
  limit: number;
  offset: number;
  /** Only the rows with these keys (statsKey): a comparison's rows for the main answer's page. */
  keys?: string[] | undefined;
}

export interface StatsAnswerRow {
  /** Time dimensions as the bucket's index from the range's start, others as text. */
  dimensions: Array<string | number>;
  /** In the order of spec.metrics. */
  metrics: number[];
}

export interface StatsRows {
  rows: StatsAnswerRow[];
  total: number;
}

export interface StatsRepository {
  query(projectId: string, spec: StatsSpec): Promise<StatsRows>;
}

/** An RE2 pattern the engine refused (the schema lets through what JavaScript parses). */
export class StatsPatternError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StatsPatternError';
  }
}

/** Whether a query holds a `matches` predicate: what an engine's refusal to compile is about. */
export const hasPattern = (spec: StatsSpec): boolean =>
  spec.filters.some((f) => predicates(f).some((p) => p.op === 'matches'));

/** A row's identity across the main and the comparison query: its dimension values. */
export const statsKey = (dims: Array<string | number>): string => dims.map(String).join('\u001f');

/** What differs between the engines' SQL. */
export interface StatsDialect {
  bind(v: string | number, type: 'String' | 'Int64'): string;
  bindList(v: string[]): string;
  /** The enriched events, aliased `e`. */
  events: string;
  /** The project's sessions as a subquery (every version folded), aliased by the caller. */
  sessions(project: string): string;
  /** (session_id, tag) of the project's standing tags, as a subquery. */
  tags(project: string): string;
  sessionColumn(dim: (typeof SESSION_DIMENSIONS)[number]): string;
  payload(path: string[]): string;
  /** A dimension value as nullable text, '' as NULL. */
  text(expr: string): string;
  contains(expr: string, v: string): string;
  matches(expr: string, v: string): string;
  orFalse(cond: string): string;
  intDiv(a: string, b: string): string;
  visitors: string;
  countIf(cond: string): string;
  median(expr: string): string;
  hasAction(param: string): string;
  keyOf(cols: string[]): string;
  inList(key: string, list: string): string;
  /** The engine's hourly rollups of the stats query, when it keeps them (see Rollups below). */
  rollups?: StatsRollups;
  /**
   * A 64-bit hash of a dimension's text that groups stand on instead of the text, when the engine
   * groups numbers much faster (DuckDB: a page's visitors at 1 M events, ~85 → ~55 ms of CPU; its
   * distinct count keys on group and visitor). Two values of one dimension with the same hash,
   * odds about n² / 2⁶⁵ for n values, would be counted as one, as two visitors with the same key.
   */
  hashKey?: (expr: string) => string;
}

/**
 * Rollups (issue 44; DuckDB's rollups.ts): per project and hour, `sessions` holds each
 * (session_key, visitor) with its `events` and `pageviews`, `pages` each page-view (path,
 * visitor) with its `pageviews`; `visitor` is the key `visitor` (an event row `e`'s) gives.
 */
export interface StatsRollups {
  sessions: string;
  pages: string;
  visitor: string;
  /**
   * A session id's key (NULL for NULL): the rollup's sessions are joined to their summaries and
   * tags on it, one number instead of a 36-character string (a browser's join and grouping at
   * 1 M events: 140 → 50 ms).
   */
  sessionKey(expr: string): string;
  /** The sessions' column that holds that key, when they keep it. */
  sessionKeyColumn?: string;
  /**
   * When `sessions` keeps each session dimension's value (NULL for a row whose session has no
   * summary): the column of a dimension. A top list of visitors then groups the rollup alone; the
   * join to 100,000 sessions and the grouping took 42–100 ms at 10 M events instead of 214–359.
   */
  sessionDimension?: (name: string) => string;
  /**
   * When the engine keeps, per project, hour, key and previous hour, how many of the hour's
   * rollup rows of the key there are (`pairs`) with their `events` and `pageviews`: the table.
   * A row's previous hour is the last hour before it that its (key, visitor) was seen in (NULL if
   * never; a later row of the same hour: that hour). `key` is 'page' with the path as `value`,
   * 'visitor' (the sessions rollup's visitors alone), or a session dimension with its value. The
   * visitors of a key over whole hours from `lo` are the pairs whose previous hour is before
   * `lo`: a sum, not a distinct count (10 M events: a page's 853 → ~10 ms).
   */
  freshCounts?: string;
}

/**
 * The session dimensions that are a column (or a default) of a session `s` on both engines; each
 * engine adds how it reads the referrer's host and the entry and exit page.
 */
export const PLAIN_SESSION_COLUMNS: Record<string, string> = {
  utm_source: 's.utm_source',
  utm_medium: 's.utm_medium',
  utm_campaign: 's.utm_campaign',
  utm_term: 's.utm_term',
  utm_content: 's.utm_content',
  country: 's.geo_country',
  region: 's.geo_region',
  city: 's.geo_city',
  browser: 's.browser_name',
  os: 's.os_name',
  device: `coalesce(s.device_type, 'desktop')`,
};

const SESSION_DIMS = new Set<string>(SESSION_DIMENSIONS);
const EVENT_DIMS = new Set<string>(EVENT_DIMENSIONS);
const isTime = (d: string) => d.startsWith('time');
const isTag = (d: string) => d === 'tag';
const isSessionDim = (d: string) => SESSION_DIMS.has(d) && !isTag(d);
const isEventDim = (d: string) => EVENT_DIMS.has(d) || d.startsWith('payload:');
const EVENT_METRICS = new Set<StatsMetric>(['visitors', 'events', 'pageviews']);
/** The items that pass `test`, then the rest. */
const partition = <T>(xs: readonly T[], test: (x: T) => boolean): [T[], T[]] => [
  xs.filter(test),
  xs.filter((x) => !test(x)),
];
const predicates = (f: StatsFilter): StatsPredicate[] => ('and' in f ? f.and : 'or' in f ? f.or : [f]);

/** The value of an event dimension on the event row `e`. */
function eventValue(d: string, sql: StatsDialect): string {
  if (d === 'page') return `CASE WHEN e.action IN (${PAGE_VIEW_SQL}) THEN e.path END`;
  if (d === 'action') return 'e.action';
  return sql.payload(d.slice('payload:'.length).split('.'));
}

class StatsPlan {
  private readonly p: string;
  /** The window's bounds, bound when first used (a value bound and not used is an error in DuckDB). */
  private bounds: { start?: string; end?: string } = {};
  /** The rollup the event side reads, if any (rollupKind). */
  private readonly kind: 'sessions' | 'pages' | null;
  /** The sessions rollup is read, with the session dimensions it keeps (sessionDimension). */
  private readonly copied: boolean;
  /**
   * Visitors are counted by previous hour (freshCounts): the key there, and the rollup's column
   * of its value (the page or a session dimension; none: the visitor alone).
   */
  private readonly fresh: { key: string; column: string | null } | null;

  constructor(
    private readonly sql: StatsDialect,
    projectId: string,
    private readonly spec: StatsSpec,
  ) {
    this.p = sql.bind(projectId, 'String');
    this.kind = this.rollupKind();
    this.copied = this.kind === 'sessions' && sql.rollups?.sessionDimension !== undefined;
    this.fresh = this.freshKey();
  }

  /**
   * When a rollup's rows hold each visitor of a key once per hour, and the key is what the query
   * groups by besides time: pages by page, and, unfiltered, the sessions rollup by one session
   * dimension it carries, or by none. A filter would drop a pair's first row and keep a later one.
   */
  private freshKey(): { key: string; column: string | null } | null {
    const { kind, spec } = this;
    const r = this.sql.rollups;
    if (!kind || !r?.freshCounts) return null;
    if (kind === 'pages') return { key: 'page', column: 'path' };
    const plain = spec.dimensions.filter((d) => !isTime(d));
    if (!this.copied || spec.filters.length > 0 || plain.length > 1 || (plain.length === 1 && !isSessionDim(plain[0]!)))
      return null;
    return plain.length ? { key: plain[0]!, column: r.sessionDimension!(plain[0]!) } : { key: 'visitor', column: null };
  }

  /**
   * The first hour of the query's whole hours that a row of time `ts` counts over: its time
   * bucket's (whole hours, rollupKind), else the window's.
   */
  private firstHour(ts: string, lo: string): string {
    const { sql, spec } = this;
    if (!spec.dimensions.some(isTime)) return lo;
    const bucket = sql.bind(spec.bucketMs!, 'Int64');
    return sql.intDiv(
      `${this.start} + ${sql.intDiv(`${ts} - ${this.start}`, bucket)} * ${bucket}`,
      sql.bind(HOUR_MS, 'Int64'),
    );
  }

  private get start(): string {
    return (this.bounds.start ??= this.sql.bind(this.spec.window.start, 'Int64'));
  }

  private get end(): string {
    return (this.bounds.end ??= this.sql.bind(this.spec.window.end, 'Int64'));
  }

  /** The session dimensions the query groups or filters by: those the sessions rollup carries. */
  private usedSessionDims(): string[] {
    const { spec } = this;
    const inFilters = spec.filters.flatMap((f) => predicates(f).map((x) => x.dimension));
    return [...new Set([...spec.dimensions, ...inFilters])].filter(isSessionDim);
  }

  /**
   * The project's sessions as `s`, and the expression of the i-th of `dims` as text. The
   * dimensions are columns of a session (DuckDB keeps its referrer's host and entry and exit
   * pages, session-derived.ts), so none is worked out more than once a row.
   */
  private sessionRows(dims: string[]): { from: string; value: (i: number) => string } {
    const { sql } = this;
    const column = (d: string) => sql.sessionColumn(d as (typeof SESSION_DIMENSIONS)[number]);
    return { from: `${sql.sessions(this.p)} AS s`, value: (i) => sql.text(column(dims[i]!)) };
  }

  /** A row's session id as the event side joins it: its key when the side reads the rollup. */
  private sid(alias: string, keyed: boolean): string {
    if (!keyed) return `${alias}.session_id`;
    const r = this.sql.rollups!;
    return alias === 's' && r.sessionKeyColumn ? `s.${r.sessionKeyColumn}` : r.sessionKey(`${alias}.session_id`);
  }

  /**
   * Which rollup the event side can read instead of the events: the window must hold a whole
   * hour (its partial hours are read from the events), a time bucket must hold whole hours, and
   * every dimension and filter must be one the rollup keeps. Session dimensions, tags and their
   * filters are joined on the session id as on the events; `page` alone, unfiltered, from `pages`.
   */
  private rollupKind(): 'sessions' | 'pages' | null {
    const { spec, sql } = this;
    if (!sql.rollups || !splitWindow(spec.window.start, spec.window.end)) return null;
    if (spec.dimensions.some(isTime) && (spec.window.start % HOUR_MS !== 0 || spec.bucketMs! % HOUR_MS !== 0))
      return null;
    const plain = spec.dimensions.filter((d) => !isTime(d));
    if (plain.length === 1 && plain[0] === 'page' && spec.filters.length === 0) return 'pages';
    const onEvents = spec.filters.some((f) => predicates(f).some((p) => isEventDim(p.dimension)));
    return onEvents || plain.some(isEventDim) ? null : 'sessions';
  }

  /**
   * The event side's rows from a rollup, as `e`: session_id (the session key) or path,
   * "timestamp" (the hour's start), visitor, n_events, n_pageviews; the window's partial hours
   * from the events, a row each.
   */
  private rollupSource(kind: 'sessions' | 'pages', r: StatsRollups): string {
    const { sql, spec, fresh } = this;
    const { lo, hi } = splitWindow(spec.window.start, spec.window.end)!;
    // A window of whole hours has no edge hours (a join to the sessions for none cost ~55 ms at 10 M).
    const whole = spec.window.start === lo * HOUR_MS && spec.window.end === hi * HOUR_MS;
    const [loHour, hiHour] = [sql.bind(lo, 'Int64'), sql.bind(hi, 'Int64')];
    const hours = (a: string) => `${a}project_id = ${this.p} AND ${a}hour >= ${loHour} AND ${a}hour < ${hiHour}`;
    const edges = whole
      ? 'false'
      : `${this.eventsInRange()} AND (e."timestamp" < ${sql.bind(lo * HOUR_MS, 'Int64')} OR e."timestamp" >= ${sql.bind(hi * HOUR_MS, 'Int64')})`;
    const pv = `e.action IN (${PAGE_VIEW_SQL})`;
    // Each side's columns: the session key and the session dimensions it carries (the edge hours'
    // events take them from the sessions), or the page; "timestamp", visitor, then the counts.
    let rollup: { table: string; cols: string[]; counts: string };
    let edge: { from: string; where: string; cols: string[]; pv: string };
    if (kind === 'sessions') {
      const dims = this.copied ? this.usedSessionDims() : [];
      const column = (d: string) => r.sessionDimension!(d);
      const edgeSessions = dims.length
        ? `LEFT JOIN (SELECT ${this.sid('s', true)} AS k, ${dims.map((d) => `${sql.sessionColumn(d as (typeof SESSION_DIMENSIONS)[number])} AS ${column(d)}`).join(', ')}
             FROM ${sql.sessions(this.p)} AS s) AS es ON es.k = ${r.sessionKey('e.session_id')}`
        : '';
      rollup = {
        table: r.sessions,
        cols: ['session_key AS session_id', ...dims.map(column)],
        counts: 'events AS n_events, pageviews AS n_pageviews',
      };
      edge = {
        from: `${sql.events} ${edgeSessions}`,
        where: edges,
        cols: [`${r.sessionKey('e.session_id')} AS session_id`, ...dims.map((d) => `es.${column(d)} AS ${column(d)}`)],
        pv: `CASE WHEN ${pv} THEN 1 ELSE 0 END`,
      };
    } else {
      rollup = { table: r.pages, cols: ['path'], counts: 'pageviews AS n_events, pageviews AS n_pageviews' };
      edge = {
        from: sql.events,
        where: `${edges} AND ${pv} AND e.path IS NOT NULL`,
        cols: ['e.path AS path'],
        pv: '1',
      };
    }
    const hourStart = `hour * ${HOUR_MS}`;
    if (!fresh)
      return `(SELECT ${rollup.cols.join(', ')}, ${hourStart} AS "timestamp", visitor, ${rollup.counts}
           FROM ${rollup.table} WHERE ${hours('')}
         ${whole ? '' : `UNION ALL SELECT ${edge.cols.join(', ')}, e."timestamp", ${r.visitor}, 1, ${edge.pv} FROM ${edge.from} WHERE ${edge.where}`}) AS e`;
    // The pairs of an hour's key whose previous hour is before the first hour they count over
    // are new visitors of it; the edge hours' pairs (one row each) when the rollup holds none of
    // theirs from that hour on.
    const key = fresh.column ? [fresh.column] : [];
    const keyCols = key.map((k) => (kind === 'pages' ? 'e.path AS path' : `es.${k} AS ${k}`));
    const same = key.map((k) => ` AND w.${k} = edge.${k}`).join('');
    const rows = `SELECT ${key.map((k) => `value AS ${k}, `).join('')}${hourStart} AS "timestamp", events AS n_events, pageviews AS n_pageviews,
             CASE WHEN prev_hour IS NULL OR prev_hour < ${this.firstHour(hourStart, loHour)} THEN pairs ELSE 0 END AS fresh
           FROM ${r.freshCounts} WHERE ${hours('')} AND key = ${sql.bind(fresh.key, 'String')}`;
    if (whole) return `(${rows}) AS e`;
    return `(WITH edge AS (SELECT ${key.map((k) => `${k}, `).join('')}visitor, min(ts) AS ts, count(*) AS n_events, sum(pv) AS n_pageviews
           FROM (SELECT ${keyCols.map((c) => `${c}, `).join('')}e."timestamp" AS ts, ${r.visitor} AS visitor, ${edge.pv} AS pv
             FROM ${edge.from} WHERE ${edge.where}) GROUP BY ALL)
         ${rows}
         UNION ALL SELECT ${key.map((k) => `${k}, `).join('')}ts, n_events, n_pageviews,
             CASE WHEN EXISTS (SELECT 1 FROM ${rollup.table} AS w WHERE ${hours('w.')} AND w.visitor = edge.visitor${same}
               AND w.hour >= ${this.firstHour('edge.ts', loHour)}) THEN 0 ELSE 1 END
           FROM edge) AS e`;
  }

  readsRollup(): boolean {
    return this.kind !== null;
  }

  private eventsInRange(): string {
    return `e.project_id = ${this.p} AND e."timestamp" >= ${this.start} AND e."timestamp" < ${this.end} AND NOT e.bot`;
  }

  private condition(value: string, f: StatsPredicate): string {
    const positive = f.op === 'is_not' ? 'is' : f.op;
    const parts =
      positive === 'is'
        ? [`${value} IN (${f.values.map((v) => this.sql.bind(v, 'String')).join(', ')})`]
        : f.values.map((v) => (positive === 'contains' ? this.sql.contains(value, v) : this.sql.matches(value, v)));
    const cond = `(${parts.join(' OR ')})`;
    return f.op === 'is_not' ? `(NOT ${this.sql.orFalse(cond)})` : cond;
  }

  /** A predicate on a row of the events (`e`) or of the sessions (`s`). */
  private predicate(f: StatsPredicate, on: 'e' | 's', keyed: boolean): string {
    const positive: StatsPredicate = f.op === 'is_not' ? { ...f, op: 'is' } : f;
    let cond: string;
    if (isTag(f.dimension)) {
      cond = `${on}.session_id IN (SELECT ${this.sid('t', keyed)} FROM ${this.sql.tags(this.p)} AS t WHERE ${this.condition('t.tag', positive)})`;
    } else if (isEventDim(f.dimension)) {
      const c = this.condition(eventValue(f.dimension, this.sql), positive);
      cond =
        on === 'e'
          ? c
          : `s.session_id IN (SELECT e.session_id FROM ${this.sql.events} WHERE ${this.eventsInRange()} AND ${c})`;
    } else {
      // On the sessions rollup's rows, a dimension it carries is a column of the row.
      const copied = on === 'e' && keyed && this.copied;
      const column = copied
        ? `e.${this.sql.rollups!.sessionDimension!(f.dimension)}`
        : this.sql.sessionColumn(f.dimension as (typeof SESSION_DIMENSIONS)[number]);
      const c = this.condition(column, positive);
      cond =
        on === 's' || copied
          ? c
          : `e.session_id IN (SELECT ${this.sid('s', keyed)} FROM ${this.sql.sessions(this.p)} AS s WHERE ${c})`;
    }
    // NULL filters a row out as false does, so only a negation needs it made false: a bare
    // comparison is one DuckDB can push into its scan.
    return f.op === 'is_not' ? `(NOT ${this.sql.orFalse(cond)})` : cond;
  }

  /** `keyed`: on the rows of the sessions rollup, whose session_id is the session key. */
  private filters(on: 'e' | 's', keyed = false, list = this.spec.filters): string {
    return list
      .map(
        (f) =>
          `(${predicates(f)
            .map((x) => this.predicate(x, on, keyed))
            .join('or' in f ? ' OR ' : ' AND ')})`,
      )
      .map((c) => ` AND ${c}`)
      .join('');
  }

  private timeValue(column: string): string {
    return this.sql.intDiv(`${column} - ${this.start}`, this.sql.bind(this.spec.bucketMs!, 'Int64'));
  }

  private dims(): Array<{ name: string; time: boolean }> {
    return this.spec.dimensions.map((d, i) => ({ name: `d${i}`, time: isTime(d) }));
  }

  /** Selects the dimensions as d0, d1…, leaves out rows without a value, groups by them. */
  private grouped(values: string[], metrics: string, from: string, inner: string): string {
    const dims = this.dims();
    if (dims.length === 0) return `SELECT ${metrics} FROM (SELECT ${inner} FROM ${from})`;
    const { hashKey } = this.sql;
    const hashed = (d: { time: boolean }) => !d.time && hashKey !== undefined;
    const cols = dims.map((d) => (hashed(d) ? `any_value(${d.name}) AS ${d.name}` : d.name)).join(', ');
    const keys = dims.map((d) => (hashed(d) ? hashKey!(d.name) : d.name)).join(', ');
    const known = dims.filter((d) => !d.time).map((d) => `${d.name} IS NOT NULL`);
    return `SELECT ${cols}, ${metrics} FROM (SELECT ${values.map((v, i) => `${v} AS d${i}`).join(', ')}, ${inner} FROM ${from})
      ${known.length ? `WHERE ${known.join(' AND ')}` : ''} GROUP BY ${keys}`;
  }

  eventSide(): string {
    const { sql, spec, kind } = this;
    const keyed = kind === 'sessions';
    // Session dimensions the rollup carries need no join to the sessions.
    const sessionDims = this.copied ? [] : spec.dimensions.filter(isSessionDim);
    const joinTag = spec.dimensions.some(isTag);
    const values = spec.dimensions.map((d) =>
      isTime(d)
        ? this.timeValue('e."timestamp"')
        : isTag(d)
          ? 't.tag'
          : kind === 'pages'
            ? sql.text('e.path')
            : isEventDim(d)
              ? sql.text(eventValue(d, sql))
              : this.copied
                ? sql.text(`e.${sql.rollups!.sessionDimension!(d)}`)
                : `sd.v${sessionDims.indexOf(d)}`,
    );
    // A session dimension's value is worked out once per session, not once per event: an entry
    // page's regular expression on every joined event row took 2.2 s at 1 M events, not 0.1.
    // A row without its session's summary has no value of a session dimension and is left out,
    // so with one the join is inner, and the filters on sessions alone cut the sessions joined
    // instead of looking each row's session up again (Chrome's countries at 1 M events: ~25 % less).
    const [onSessions, onRows] = sessionDims.length
      ? partition(this.spec.filters, (f) => !predicates(f).some((x) => isEventDim(x.dimension)))
      : [[], this.spec.filters];
    const rows = this.sessionRows(sessionDims);
    const sessionValues = sessionDims.map((_, i) => `${rows.value(i)} AS v${i}`);
    const from = `${kind ? this.rollupSource(kind, sql.rollups!) : sql.events}
      ${sessionDims.length ? `INNER JOIN (SELECT ${this.sid('s', keyed)} AS session_id, ${sessionValues.join(', ')} FROM ${rows.from} WHERE true${this.filters('s', false, onSessions)}) AS sd ON sd.session_id = e.session_id` : ''}
      ${joinTag ? `INNER JOIN ${sql.tags(this.p)} AS t ON ${this.sid('t', keyed)} = e.session_id` : ''}
      WHERE ${kind ? 'true' : this.eventsInRange()}${this.filters('e', keyed, onRows)}`;
    return kind
      ? this.grouped(
          values,
          this.aggregates({
            events: 'sum(n_events) AS m_events',
            pageviews: 'sum(n_pageviews) AS m_pageviews',
            visitors: this.fresh ? 'sum(fresh) AS m_visitors' : 'count(DISTINCT visitor) AS m_visitors',
          }),
          from,
          `e.n_events AS n_events, e.n_pageviews AS n_pageviews, ${this.fresh ? 'e.fresh AS fresh' : 'e.visitor AS visitor'}`,
        )
      : this.grouped(
          values,
          this.aggregates({
            events: 'count(*) AS m_events',
            pageviews: `${sql.countIf('pv')} AS m_pageviews`,
            visitors: `${sql.visitors} AS m_visitors`,
          }),
          from,
          `e.action IN (${PAGE_VIEW_SQL}) AS pv, e.ip AS ip, e.user_agent AS user_agent`,
        );
  }

  /**
   * The aggregates of the metrics asked for (a session count always: the rates divide by it);
   * a median the list does not show cost a sort of every group's sessions.
   */
  private aggregates(of: Partial<Record<StatsMetric, string>>): string {
    const asked = new Set<StatsMetric>(this.spec.metrics);
    if (asked.has('conversion_rate')) asked.add('conversions');
    return Object.entries(of)
      .filter(([m]) => m === 'sessions' || asked.has(m as StatsMetric))
      .map(([, sql]) => sql)
      .join(', ');
  }

  sessionSide(): string {
    const { sql, spec } = this;
    const eventDims = spec.dimensions.filter(isEventDim);
    const sessionDims = spec.dimensions.filter(isSessionDim);
    const joinTag = spec.dimensions.some(isTag);
    const inRange = `s.last_event_at >= ${this.start} AND s.last_event_at < ${this.end}`;
    const rows = this.sessionRows(sessionDims);
    const values = spec.dimensions.map((d) =>
      isTime(d)
        ? this.timeValue('s.last_event_at')
        : isTag(d)
          ? 't.tag'
          : isEventDim(d)
            ? `ev.v${eventDims.indexOf(d)}`
            : rows.value(sessionDims.indexOf(d)),
    );
    // A session counts under each value of an event dimension among its matching events of the range.
    const ev = eventDims.length
      ? `INNER JOIN (SELECT DISTINCT e.session_id AS session_id, ${eventDims.map((d, i) => `${sql.text(eventValue(d, sql))} AS v${i}`).join(', ')}
           FROM ${sql.events} WHERE ${this.eventsInRange()}${this.filters('e')}) AS ev ON ev.session_id = s.session_id`
      : '';
    const goal = spec.goal
      ? 'action' in spec.goal
        ? sql.hasAction(sql.bind(spec.goal.action, 'String'))
        : `s.session_id IN (SELECT t.session_id FROM ${sql.tags(this.p)} AS t WHERE t.tag = ${sql.bind(spec.goal.tag, 'String')})`
      : 'false';
    const from = `${rows.from} ${ev}
      ${joinTag ? `INNER JOIN ${sql.tags(this.p)} AS t ON t.session_id = s.session_id` : ''}
      WHERE ${inRange}${this.filters('s')}`;
    return this.grouped(
      values,
      this.aggregates({
        sessions: 'count(*) AS m_sessions',
        bounce_rate: `${sql.countIf('page_count <= 1')} AS m_bounces`,
        visit_duration: `${sql.median('duration_ms')} AS m_duration`,
        views_per_session: 'sum(page_count) AS m_page_sum',
        conversions: `${sql.countIf('goal')} AS m_conversions`,
      }),
      from,
      `s.page_count AS page_count, s.duration_ms AS duration_ms, ${sql.orFalse(goal)} AS goal`,
    );
  }

  /** The whole query: both sides as needed, joined on the dimensions, ordered and cut. */
  build(): string {
    const { spec, sql } = this;
    const wantEvents = spec.metrics.some((m) => EVENT_METRICS.has(m));
    const wantSessions = spec.metrics.some((m) => !EVENT_METRICS.has(m));
    const dims = this.dims().map((d) => d.name);
    const sides = [
      wantEvents ? `(${this.eventSide()}) AS ev_side` : '',
      wantSessions ? `(${this.sessionSide()}) AS s_side` : '',
    ].filter(Boolean);
    const from =
      sides.length === 1
        ? sides[0]
        : dims.length
          ? `${sides[0]} FULL OUTER JOIN ${sides[1]} USING (${dims.join(', ')})`
          : `${sides[0]} CROSS JOIN ${sides[1]}`;
    const n = (c: string) => `coalesce(${c}, 0)`;
    const share = (a: string) => `CASE WHEN ${n('m_sessions')} = 0 THEN 0 ELSE ${n(a)} / ${n('m_sessions')} END`;
    const metric: Record<StatsMetric, string> = {
      events: n('m_events'),
      pageviews: n('m_pageviews'),
      visitors: n('m_visitors'),
      sessions: n('m_sessions'),
      bounce_rate: share('m_bounces'),
      visit_duration: `CASE WHEN ${n('m_sessions')} = 0 THEN 0 ELSE m_duration END`,
      views_per_session: share('m_page_sum'),
      conversions: n('m_conversions'),
      conversion_rate: share('m_conversions'),
    };
    const select = [...dims, ...spec.metrics.map((m) => `${metric[m]} AS ${m}`)];
    const column = (name: string) => {
      const d = spec.dimensions.indexOf(name as StatsDimension);
      return d >= 0 ? `d${d}` : name;
    };
    const order = [
      ...spec.orderBy.map(([name, dir]) => `${column(name)} ${dir.toUpperCase()}`),
      ...dims.map((d) => `${d} ASC`),
    ];
    const keys = spec.keys && dims.length ? `WHERE ${sql.inList(sql.keyOf(dims), sql.bindList(spec.keys))}` : '';
    return `SELECT ${select.join(', ')}, count(*) OVER () AS total_rows FROM ${from} ${keys}
      ${order.length ? `ORDER BY ${order.join(', ')}` : ''}
      LIMIT ${checkLimit(spec.limit)} OFFSET ${checkLimit(spec.offset)}`;
  }
}

/**
 * The SQL of a stats query in an engine's dialect; values bound through `dialect.bind`. `rollups`:
 * whether it reads the dialect's rollups, which the engine then makes current first.
 */
export function statsSql(dialect: StatsDialect, projectId: string, spec: StatsSpec): { sql: string; rollups: boolean } {
  const plan = new StatsPlan(dialect, projectId, spec);
  const wantEvents = spec.metrics.some((m) => EVENT_METRICS.has(m));
  return { sql: plan.build(), rollups: wantEvents && plan.readsRollup() };
}

/** Engine rows to answer rows: time buckets as indexes, metrics as numbers (a median rounded to the ms). */
export function toStatsRows(spec: StatsSpec, rows: Array<Record<string, unknown>>): StatsRows {
  return {
    total: rows.length ? Number(rows[0]!['total_rows']) : 0,
    rows: rows.map((r) => ({
      dimensions: spec.dimensions.map((d, i) => (isTime(d) ? Number(r[`d${i}`]) : String(r[`d${i}`]))),
      metrics: spec.metrics.map((m) => {
        const v = toFloatOrNull(r[m]) ?? 0;
        const finite = Number.isFinite(v) ? v : 0;
        return m === 'visit_duration' ? Math.round(finite) : finite;
      }),
    })),
  };
}
