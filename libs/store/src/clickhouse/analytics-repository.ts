import type {
  AnalyticsRepository,
  SeriesBucket,
  TransitionCounts,
  Window,
  WindowAggregates,
  WindowOverview,
} from '../store.js';
import { checkLimit, toInt, toStr } from '../column-values.js';
import {
  END_STATE,
  MAX_ACTIONS,
  PAGE_VIEW_SQL,
  START_STATE,
  checkBucket,
  rankCounts,
  toHeadline,
  toRanked,
  toSeries,
  toTransitions,
  type SessionDimension,
} from '../analytics-row.js';
import type { ClickHouseConnection } from './clickhouse-connection.js';
import { currentGenerations, refreshRollups } from './rollups.js';
import { HOUR_MS, refreshOnce, splitWindow, type HourSplit } from '../rollup-hours.js';

const WINDOW = 'project_id = {project_id:String} AND {start:Int64} <= %c AND %c < {end:Int64}';

const DIMENSIONS: Record<SessionDimension, string> = {
  referrers: `if(domain(referrer) = '', referrer, domain(referrer))`,
  utm_sources: 'utm_source',
  countries: 'geo_country',
  browsers: 'browser_name',
  devices: `coalesce(device_type, 'desktop')`,
};

/**
 * A session id as a 128-bit number, the key the tags are joined to the window's sessions by: a
 * million ids as strings made that a third slower (10 M events on the stand-in, issue 15). Two
 * ids collide with odds like those of the embedded store's 128-bit event keys (~2^-64 at 2^32
 * sessions), which this store accepts for identity already.
 */
const SESSION_HASH = 'reinterpretAsUInt128(sipHash128(session_id))';

/** The window's partial first and last hour. */
const EDGES = `project_id = {project_id:String} AND (timestamp >= {start:Int64} AND timestamp < {lo_ms:Int64}
  OR timestamp >= {hi_ms:Int64} AND timestamp < {end:Int64})`;
/**
 * The most buckets an overview counts its sessions per bucket for in the headline's scan (one
 * counter each, `countResample`); an overview has at most a few hundred (MAX_SERIES_POINTS).
 */
const MAX_RESAMPLED_BUCKETS = 10_000;

interface PerBucket {
  bucket: number;
  buckets: number;
}

/** A series' parameters. */
type BucketParams = { project_id: string; start: number; end: number; bucket: number };

/** sumMap's (names, counts), ranked. */
function rankMap(map: unknown, top: number): Array<{ name: string; count: number }> {
  const [names, counts] = (map ?? [[], []]) as [unknown[], unknown[]];
  return rankCounts(
    names.map((n, i) => [toStr(n), toInt(counts[i])] as const),
    top,
  );
}

/**
 * Aggregates in ClickHouse SQL. Events and sessions are ReplacingMergeTrees, so each read of them
 * says FINAL: a redelivered event or an older session version must not count twice. A window's
 * whole hours come from the rollups (rollups.ts), which are built the same way.
 */
export class ClickHouseAnalyticsRepository implements AnalyticsRepository {
  constructor(private readonly ch: ClickHouseConnection) {}

  private eventsIn(): string {
    return `FROM ${this.ch.table('enriched_events')} FINAL WHERE ${WINDOW.replaceAll('%c', 'timestamp')} AND NOT bot`;
  }

  private sessionsIn(): string {
    return `FROM ${this.ch.table('sessions')} FINAL WHERE ${WINDOW.replaceAll('%c', 'last_event_at')}`;
  }

  /** Rollup rows of the window's whole hours, the current generation only (rollups.ts). */
  private wholeHours(table: string): string {
    return `${this.ch.table(table)} WHERE project_id = {project_id:String} AND hour >= {lo:Int64} AND hour < {hi:Int64}
      AND ${currentGenerations(this.ch)}`;
  }

  /**
   * The window's events outside its whole hours (or in `range`). FINAL over a time range costs
   * little here: at 10 M events an hour's read took ~8 ms above the stand-in's floor.
   */
  private edges(cols: string, more = '', range = EDGES): string {
    return `(SELECT ${cols} FROM ${this.ch.table('enriched_events')} FINAL WHERE ${range} AND NOT bot${more})`;
  }

  /** Brings the project's rollups up to date, once per store call (refreshOnce). */
  private refresher(projectId: string): () => Promise<void> {
    return refreshOnce(() => refreshRollups(this.ch, projectId));
  }

  /** The split's parameters, after bringing the project's rollups up to date. */
  private async splitParams(split: HourSplit, refresh: () => Promise<void>) {
    await refresh();
    return { lo: split.lo, hi: split.hi, lo_ms: split.lo * HOUR_MS, hi_ms: split.hi * HOUR_MS };
  }

  /** Events, visitors, actions and pages of a window with whole hours, from the rollups and the partial hours' events. */
  private async eventFigures(p: Record<string, unknown>) {
    const [[headline], actions, pages] = await Promise.all([
      this.ch.rows(
        `SELECT (SELECT sum(events) FROM ${this.wholeHours('rollup_events')})
                + (SELECT count() FROM ${this.edges('1 AS one')}) AS events,
              (SELECT uniqExact(v) FROM (
                 SELECT visitor AS v FROM ${this.wholeHours('rollup_visitors')}
                 UNION ALL SELECT v FROM ${this.edges('cityHash64(ip, user_agent) AS v')})) AS visitors`,
        p,
      ),
      this.ch.rows(
        `SELECT name, sum(n) AS count FROM (
         SELECT action AS name, events AS n FROM ${this.wholeHours('rollup_events')}
         UNION ALL SELECT a, toUInt64(1) FROM ${this.edges('toString(action) AS a')})
       GROUP BY name ORDER BY count DESC, name LIMIT ${MAX_ACTIONS}`,
        p,
      ),
      this.ch.rows(
        `SELECT name, sum(n) AS count FROM (
         SELECT assumeNotNull(path) AS name, events AS n FROM ${this.wholeHours('rollup_events')} AND path IS NOT NULL
         UNION ALL SELECT assumeNotNull(path), toUInt64(1) FROM ${this.edges('path', ` AND action IN (${PAGE_VIEW_SQL}) AND path IS NOT NULL`)})
       GROUP BY name ORDER BY count DESC, name LIMIT {top:UInt64}`,
        p,
      ),
    ]);
    return { headline: headline!, actions, pages };
  }

  /**
   * The queries of an overview are independent, so they run at once (the server answers several
   * at a time; the chDB stand-in four): the event figures and the session figures side by side.
   */
  async aggregate(projectId: string, w: Window, topN: number): Promise<WindowAggregates> {
    return (await this.figures(projectId, w, topN, null, this.refresher(projectId))).aggregates;
  }

  /**
   * The overview's sessions per bucket come from the headline's scan of the window's sessions
   * (`countResample`), not from a scan of their own under FINAL as `series` asks: 110 ms of an
   * overview at 10 M events on the stand-in (issue 15). The buckets' events then follow.
   */
  async overview(projectId: string, w: Window, topN: number, bucketMs: number): Promise<WindowOverview> {
    const buckets = Math.ceil((w.end - w.start) / checkBucket(bucketMs));
    if (buckets > MAX_RESAMPLED_BUCKETS) {
      return { ...(await this.aggregate(projectId, w, topN)), series: await this.series(projectId, w, bucketMs) };
    }
    // One refresh of the rollups for both: the figures' and the buckets' whole hours.
    const refresh = this.refresher(projectId);
    const per = { bucket: bucketMs, buckets };
    const { aggregates, sessionBuckets } = await this.figures(projectId, w, topN, per, refresh);
    const events = await this.eventBuckets(
      { project_id: projectId, start: w.start, end: w.end, bucket: bucketMs },
      refresh,
    );
    return { ...aggregates, series: toSeries(w.start, bucketMs, events, sessionBuckets) };
  }

  /** The window's figures, and its sessions per bucket when `per` says the buckets. */
  private async figures(
    projectId: string,
    w: Window,
    topN: number,
    per: PerBucket | null,
    refresh: () => Promise<void>,
  ) {
    const p = { project_id: projectId, start: w.start, end: w.end, top: checkLimit(topN) };
    const split = splitWindow(w.start, w.end);
    const [events, sessions] = await Promise.all([
      split ? this.splitParams(split, refresh).then((s) => this.eventFigures({ ...p, ...s })) : this.rawEventFigures(p),
      this.sessionFigures(p, per),
    ]);
    const aggregates: WindowAggregates = {
      ...toHeadline(events.headline, sessions.headline),
      actions: toRanked(events.actions),
      pages: toRanked(events.pages),
      ...sessions.dims,
      tags: sessions.tags,
    };
    return { aggregates, sessionBuckets: sessions.buckets };
  }

  /** Events, visitors, actions and pages of a window without a whole hour, from the events. */
  private async rawEventFigures(p: Record<string, unknown>) {
    const [[headline], actions, pages] = await Promise.all([
      this.ch.rows(`SELECT count() AS events, uniqExact(ip, user_agent) AS visitors ${this.eventsIn()}`, p),
      this.ch.rows(
        `SELECT toString(action) AS name, count() AS count ${this.eventsIn()} GROUP BY name ORDER BY count DESC, name LIMIT ${MAX_ACTIONS}`,
        p,
      ),
      this.ch.rows(
        `SELECT assumeNotNull(path) AS name, count() AS count ${this.eventsIn()} AND action IN (${PAGE_VIEW_SQL}) AND path IS NOT NULL
         GROUP BY name ORDER BY count DESC, name LIMIT {top:UInt64}`,
        p,
      ),
    ]);
    return { headline: headline!, actions, pages };
  }

  /**
   * Sessions, bounces, durations, the dimensions and tags of the window's sessions, as two
   * queries side by side, each one scan of the sessions under FINAL:
   * - the headline: the three duration quantiles from one state, the sessions per bucket when
   *   `per` asks, and the tags, each session joined to its standing tags;
   * - the dimensions, one scan grouped by each dimension in turn (GROUPING SETS).
   * At 10 M events on the stand-in (issue 15): the dimensions as one `sumMapIf` each in the
   * headline's scan took 328 ms, the headline alone 128 and the grouping sets 170; the tags as a
   * query of their own (the window's sessions as a set) 314 ms, the headline with them 340
   * against 156 without. Six scans under FINAL, before any of this, had cost six times one.
   */
  private async sessionFigures(p: Record<string, unknown>, per: PerBucket | null) {
    const dimensions = Object.entries(DIMENSIONS) as Array<[SessionDimension, string]>;
    // A value counts when it is neither NULL nor empty. In a grouping set the other dimensions
    // are NULL (their columns are Nullable), so a row names its dimension by its one value.
    const values = dimensions.map(([key, expr]) => `nullIf(toString(assumeNotNull(${expr})), '') AS ${key}`);
    const [[row], dimRows] = await Promise.all([
      this.ch.rows(
        `SELECT count() AS sessions, countIf(page_count <= 1) AS bounces,
                quantilesExactInclusive(0.5, 0.9, 0.99)(toFloat64(duration_ms)) AS quantiles,
                sumMap(t.tags, arrayResize([toUInt64(1)], length(t.tags), toUInt64(1))) AS tag_counts
                ${per ? ', countResample(0, {buckets:Int64}, 1)(intDiv(last_event_at - {start:Int64}, {bucket:Int64})) AS per_bucket' : ''}
         FROM (SELECT page_count, duration_ms, last_event_at, ${SESSION_HASH} AS h ${this.sessionsIn()}) AS s
         LEFT JOIN (SELECT h, groupUniqArray(tag) AS tags FROM (
             SELECT tag, ${SESSION_HASH} AS h, argMax(removed, (changed_at, _written)) AS removed
             FROM ${this.ch.table('session_tag_facts')} WHERE project_id = {project_id:String}
             GROUP BY tag, session_id, source)
           WHERE NOT removed GROUP BY h) AS t ON s.h = t.h
         SETTINGS join_use_nulls = 0`,
        per ? { ...p, ...per } : p,
      ),
      this.ch.rows(
        `SELECT ${dimensions.map(([key]) => key).join(', ')}, count() AS n
         FROM (SELECT ${values.join(', ')} ${this.sessionsIn()})
         GROUP BY GROUPING SETS (${dimensions.map(([key]) => `(${key})`).join(', ')})`,
        p,
      ),
    ]);
    const counts = new Map<SessionDimension, Array<[string, number]>>(dimensions.map(([key]) => [key, []]));
    for (const r of dimRows) {
      const key = dimensions.find(([k]) => r[k] !== null && r[k] !== undefined)?.[0];
      if (key) counts.get(key)!.push([toStr(r[key]), toInt(r.n)]);
    }
    const top = Number(p.top);
    const dims = Object.fromEntries(dimensions.map(([key]) => [key, rankCounts(counts.get(key)!, top)])) as Record<
      SessionDimension,
      Array<{ name: string; count: number }>
    >;
    const { quantiles, per_bucket: perBucket, tag_counts: tagCounts, ...totals } = row!;
    const [p50, p90, p99] = (quantiles ?? []) as unknown[];
    const tags = rankMap(tagCounts, top);
    // Sparse like `series`' GROUP BY: a bucket without sessions gives no row.
    const buckets = ((perBucket ?? []) as unknown[])
      .map((n, b) => ({ b, sessions: toInt(n) }))
      .filter((r) => r.sessions > 0);
    return { headline: { ...totals, p50, p90, p99 }, dims, tags, buckets };
  }

  async series(projectId: string, w: Window, bucketMs: number): Promise<SeriesBucket[]> {
    const p = { project_id: projectId, start: w.start, end: w.end, bucket: checkBucket(bucketMs) };
    const [events, sessions] = await Promise.all([
      this.eventBuckets(p, this.refresher(projectId)),
      this.ch.rows(
        `SELECT intDiv(last_event_at - {start:Int64}, {bucket:Int64}) AS b, count() AS sessions ${this.sessionsIn()} GROUP BY b`,
        p,
      ),
    ]);
    return toSeries(w.start, bucketMs, events, sessions);
  }

  /** Events and visitors per bucket, bucket index `b`. */
  private eventBuckets(p: BucketParams, refresh: () => Promise<void>): Promise<Array<Record<string, unknown>>> {
    const split = p.bucket >= HOUR_MS ? splitWindow(p.start, p.end) : null;
    if (split) return this.splitParams(split, refresh).then((s) => this.bucketsByHour({ ...p, ...s }));
    return this.ch.rows(
      `SELECT intDiv(timestamp - {start:Int64}, {bucket:Int64}) AS b, count() AS events, uniqExact(ip, user_agent) AS visitors ${this.eventsIn()} GROUP BY b`,
      p,
    );
  }

  /**
   * Buckets of an hour or more, from the rollups' whole hours and the partial hours' events:
   * events from the per-minute counts, a minute that a bucket start cuts split by its events'
   * offsets (rollups.ts, step 11); visitors from the hourly ones (an hour is cut by at most one
   * bucket start, and a visitor's first and last event of the hour place them on either side).
   */
  private async bucketsByHour(p: Record<string, unknown>): Promise<Array<Record<string, unknown>>> {
    const bucket = `intDiv(timestamp - {start:Int64}, {bucket:Int64}) AS b`;
    // Each whole minute's bucket at its start (ks) and at its end (ke): a bucket is an hour or
    // more, so a minute is cut at most once, at {start} + ke × {bucket}.
    const minutes = `(SELECT minute, events, offsets,
        intDiv(minute * 60000 - {start:Int64}, {bucket:Int64}) AS ks, intDiv(minute * 60000 + 59999 - {start:Int64}, {bucket:Int64}) AS ke
      FROM ${this.wholeHours('rollup_minutes')})`;
    const [counts, visitors] = await Promise.all([
      this.ch.rows(
        `SELECT b, sum(n) AS events FROM (
           SELECT ks AS b, events AS n FROM ${minutes} WHERE ks = ke
           UNION ALL
           SELECT pair.1 AS b, pair.2 AS n FROM (
             SELECT arrayJoin([(ks, before), (ke, toUInt64(events - before))]) AS pair FROM (
               SELECT ks, ke, toUInt64(events) AS events,
                      toUInt64(arrayCount(x -> x < {start:Int64} + ke * {bucket:Int64} - minute * 60000, offsets)) AS before
               FROM ${minutes} WHERE ks != ke))
           UNION ALL SELECT b, toUInt64(1) FROM ${this.edges(bucket)})
         GROUP BY b`,
        p,
      ),
      this.ch.rows(
        `SELECT b, uniqExact(v) AS visitors FROM (
         SELECT arrayJoin(arrayFilter(x -> x >= 0, [
                  if(ks = ke OR first_at < {start:Int64} + ke * {bucket:Int64}, ks, -1),
                  if(ks != ke AND last_at >= {start:Int64} + ke * {bucket:Int64}, ke, -1)])) AS b,
                visitor AS v
         FROM (SELECT visitor, first_at, last_at,
                      intDiv(hour * ${HOUR_MS} - {start:Int64}, {bucket:Int64}) AS ks,
                      intDiv((hour + 1) * ${HOUR_MS} - 1 - {start:Int64}, {bucket:Int64}) AS ke
               FROM ${this.wholeHours('rollup_visitors')})
         UNION ALL
         SELECT b, v FROM ${this.edges(`${bucket}, cityHash64(ip, user_agent) AS v`)})
       GROUP BY b`,
        p,
      ),
    ]);
    const byBucket = new Map(visitors.map((r) => [toInt(r.b), r.visitors]));
    return counts.map((r) => ({ ...r, visitors: byBucket.get(toInt(r.b)) ?? 0 }));
  }

  /**
   * A window with whole hours: the hours' in-segment counts, the partial hours' events cut into
   * segments the same way, and each session's segments joined in hour order (rollups.ts).
   */
  private async transitionsByHour(p: Record<string, unknown>): Promise<TransitionCounts> {
    const edge = this.edges(
      'assumeNotNull(session_id) AS sid, timestamp AS ts, event_id AS eid, toString(action) AS a',
      ' AND session_id IS NOT NULL',
    );
    const rows = await this.ch.rows(
      `SELECT from_state, to_state, sum(n) AS count FROM (
         SELECT from_action AS from_state, to_action AS to_state, n FROM ${this.wholeHours('rollup_cells')}
         UNION ALL
         SELECT prev, a, toUInt64(1) FROM (
           SELECT a, row_number() OVER w AS rn, lagInFrame(a) OVER w AS prev FROM ${edge}
           WINDOW w AS (PARTITION BY sid, intDiv(ts, ${HOUR_MS}) ORDER BY ts, eid ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW))
         WHERE rn > 1
         UNION ALL
         SELECT pair.1, pair.2, toUInt64(1) FROM (
           SELECT arraySort(x -> x.1, groupArray((h, fa, la))) AS segs FROM (
             SELECT hour AS h, session_id AS sid, first_action AS fa, last_action AS la FROM ${this.wholeHours('rollup_segments')}
             UNION ALL
             SELECT intDiv(ts, ${HOUR_MS}) AS h, sid, argMin(a, (ts, eid)) AS fa, argMax(a, (ts, eid)) AS la FROM ${edge} GROUP BY h, sid)
           GROUP BY sid)
         ARRAY JOIN arrayConcat([('${START_STATE}', segs[1].2)],
                                arrayMap(i -> (segs[i].3, segs[i + 1].2), range(1, length(segs))),
                                [(segs[length(segs)].3, '${END_STATE}')]) AS pair)
       GROUP BY from_state, to_state`,
      p,
    );
    return toTransitions(rows);
  }

  /** Row numbers mark each session's first and last event, so no action name can pose as a boundary. */
  async transitions(projectId: string, w: Window): Promise<TransitionCounts> {
    const split = splitWindow(w.start, w.end);
    if (split) {
      const p = { project_id: projectId, start: w.start, end: w.end };
      return this.transitionsByHour({ ...p, ...(await this.splitParams(split, this.refresher(projectId))) });
    }
    const rows = await this.ch.rows(
      `SELECT pair.1 AS from_state, pair.2 AS to_state, count() AS count FROM (
         SELECT toString(action) AS act, row_number() OVER w AS rn, count() OVER w AS n,
                if(rn = 1, '${START_STATE}', toString(lagInFrame(action) OVER w)) AS prev
         ${this.eventsIn()} AND session_id IS NOT NULL
         WINDOW w AS (PARTITION BY session_id ORDER BY timestamp, event_id ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING))
       ARRAY JOIN if(rn = n, [(prev, act), (act, '${END_STATE}')], [(prev, act)]) AS pair
       GROUP BY from_state, to_state`,
      { project_id: projectId, start: w.start, end: w.end },
    );
    return toTransitions(rows);
  }

  async countTagged(projectId: string, tag: string, since: number): Promise<number> {
    const [row] = await this.ch.rows(
      `SELECT count() AS n FROM (
         SELECT session_id FROM (
           SELECT session_id, argMax((removed, tagged_at), (changed_at, _written)) AS fact
           FROM ${this.ch.table('session_tag_facts')} WHERE project_id = {project_id:String} AND tag = {tag:String}
           GROUP BY session_id, source)
         WHERE NOT fact.1 GROUP BY session_id HAVING max(fact.2) >= {since:Int64})`,
      { project_id: projectId, tag, since },
    );
    return Number(row!.n);
  }
}
