import type {
  AnalyticsRepository,
  SeriesBucket,
  TransitionCounts,
  Window,
  WindowAggregates,
  WindowOverview,
} from '../store.js';
import { checkLimit, toInt } from '../column-values.js';
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
import type { DuckDbConnection, DuckReader, Param } from './duckdb-connection.js';
import { refreshRollups } from './rollups.js';
import type { Wide } from './duckdb-threads.js';
import { HOUR_MS, refreshOnce, splitWindow } from '../rollup-hours.js';

const EVENTS_IN = `FROM enriched_events WHERE project_id = $1 AND "timestamp" >= $2 AND "timestamp" < $3 AND NOT bot`;
/** Rollup rows of the window's whole hours, [$4, $5) (rollups.ts). */
const WHOLE_HOURS = 'project_id = $1 AND hour >= $4 AND hour < $5';
/** The window's events outside its whole hours: [$2, $4·H) and [$5·H, $3). */
const edges = (cols: string, more = '') =>
  `(SELECT ${cols} FROM enriched_events WHERE project_id = $1 AND "timestamp" >= $2 AND "timestamp" < $4::BIGINT * ${HOUR_MS} AND NOT bot${more}
    UNION ALL
    SELECT ${cols} FROM enriched_events WHERE project_id = $1 AND "timestamp" >= $5::BIGINT * ${HOUR_MS} AND "timestamp" < $3 AND NOT bot${more})`;

const SESSIONS_IN = 'FROM sessions WHERE project_id = $1 AND last_event_at >= $2 AND last_event_at < $3';

/** Device types missing in ua-parser mean a desktop; referrers are ranked by host (referrerHost). */
const DIMENSIONS: Record<Exclude<SessionDimension, 'referrers'>, string> = {
  utm_sources: 'utm_source',
  countries: 'geo_country',
  browsers: 'browser_name',
  devices: `coalesce(device_type, 'desktop')`,
};

const URL_HOST = /^[A-Za-z][A-Za-z0-9+.-]*:\/\/([^/?#:]+)/;

/** A referrer's host, or the referrer as sent when it is no URL. */
export function referrerHost(referrer: string): string {
  return URL_HOST.exec(referrer)?.[1] ?? referrer;
}

/**
 * Referrers by host from their counts per referrer: the host is taken once per distinct
 * referrer, not once per session (a regular expression per session row was a third of the
 * aggregation, issue 15), then ranked as SQL would rank them.
 */
function rankReferrers(rows: Array<Record<string, unknown>>, topN: number) {
  const byHost = new Map<string, number>();
  for (const r of rows) {
    const host = referrerHost(String(r.referrer));
    byHost.set(host, (byHost.get(host) ?? 0) + toInt(r.n));
  }
  return rankCounts(byHost, checkLimit(topN));
}

/**
 * Aggregates in DuckDB SQL, on the jobs' reader connection. The event figures and the matrix of a
 * window with whole hours come from the hourly rollups (rollups.ts), refreshed first on the
 * writer, plus the events of its partial hours; the session figures are one scan each of the
 * window's sessions. DuckDB prunes the window with its zone maps (migrations.ts).
 */
export class DuckDbAnalyticsRepository implements AnalyticsRepository {
  constructor(
    private readonly reader: DuckReader,
    private readonly writer: DuckDbConnection,
    private readonly wide: Wide,
  ) {}

  /** Brings the project's rollups up to date with every write before this call. */
  refresh(projectId: string): Promise<void> {
    return this.wide(() => this.refreshNow(projectId));
  }

  /** The refresh itself, for the calls below, which already run on a wide engine. */
  private refreshNow(projectId: string): Promise<void> {
    return refreshRollups((fn) => this.writer.exclusive(fn), projectId);
  }

  /** The refresh at most once per store call, for a call whose queries need it more than once. */
  private refresher(projectId: string): () => Promise<void> {
    return refreshOnce(() => this.refreshNow(projectId));
  }

  // Each job's queries run on a wide engine, widened once for the whole call (duckdb-threads.ts).
  aggregate(projectId: string, w: Window, topN: number): Promise<WindowAggregates> {
    return this.wide(() => this.aggregateWide(projectId, w, topN, this.refresher(projectId)));
  }

  series(projectId: string, w: Window, bucketMs: number): Promise<SeriesBucket[]> {
    return this.wide(() => this.seriesWide(projectId, w, bucketMs, this.refresher(projectId)));
  }

  /**
   * The two in turn on one widened engine, the rollups refreshed once: DuckDB's session scans are
   * cheap beside ClickHouse's FINAL.
   */
  overview(projectId: string, w: Window, topN: number, bucketMs: number): Promise<WindowOverview> {
    const refresh = this.refresher(projectId);
    return this.wide(async () => ({
      ...(await this.aggregateWide(projectId, w, topN, refresh)),
      series: await this.seriesWide(projectId, w, bucketMs, refresh),
    }));
  }

  transitions(projectId: string, w: Window): Promise<TransitionCounts> {
    return this.wide(() => this.transitionsWide(projectId, w));
  }

  countTagged(projectId: string, tag: string, since: number): Promise<number> {
    return this.wide(() => this.countTaggedWide(projectId, tag, since));
  }

  private async aggregateWide(
    projectId: string,
    w: Window,
    topN: number,
    refresh: () => Promise<void>,
  ): Promise<WindowAggregates> {
    const p = [projectId, w.start, w.end];
    const top = [...p, checkLimit(topN)];
    const split = splitWindow(w.start, w.end);
    if (split) await refresh();
    const events = split
      ? await this.eventFigures([...p, split.lo, split.hi, checkLimit(topN)])
      : await this.rawEventFigures(top);
    const [sessions] = await this.reader.all(
      `SELECT count(*) AS sessions, count(*) FILTER (WHERE page_count <= 1) AS bounces,
              quantile_cont(duration_ms, 0.5) AS p50, quantile_cont(duration_ms, 0.9) AS p90, quantile_cont(duration_ms, 0.99) AS p99
       ${SESSIONS_IN}`,
      p,
    );
    const dims = {} as Record<SessionDimension, Array<{ name: string; count: number }>>;
    dims.referrers = rankReferrers(
      await this.reader.all(`SELECT referrer, count(*) AS n ${SESSIONS_IN} AND referrer <> '' GROUP BY referrer`, p),
      topN,
    );
    for (const [key, expr] of Object.entries(DIMENSIONS) as Array<[SessionDimension, string]>) {
      dims[key] = toRanked(
        await this.reader.all(
          `SELECT name, count(*) AS count FROM (SELECT ${expr} AS name ${SESSIONS_IN})
         WHERE name IS NOT NULL AND name <> '' GROUP BY name ORDER BY count DESC, name LIMIT $4`,
          top,
        ),
      );
    }
    const tags = await this.reader.all(
      `SELECT f.tag AS name, count(DISTINCT f.session_id) AS count
       FROM session_tag_facts f JOIN sessions s ON s.project_id = f.project_id AND s.session_id = f.session_id
       WHERE f.project_id = $1 AND NOT f.removed AND s.last_event_at >= $2 AND s.last_event_at < $3
       GROUP BY f.tag ORDER BY count DESC, name LIMIT $4`,
      top,
    );
    return {
      ...toHeadline(events.headline, sessions!),
      actions: toRanked(events.actions),
      pages: toRanked(events.pages),
      ...dims,
      tags: toRanked(tags),
    };
  }

  /** Events, visitors, actions and pages of a window without a whole hour, from the events; $4 topN. */
  private async rawEventFigures(top: Param[]) {
    const p = top.slice(0, 3);
    const [headline] = await this.reader.all(
      `SELECT count(*) AS events, count(DISTINCT hash(ip, user_agent)) AS visitors ${EVENTS_IN}`,
      p,
    );
    const actions = await this.reader.all(
      `SELECT action AS name, count(*) AS count ${EVENTS_IN} GROUP BY action ORDER BY count DESC, name LIMIT ${MAX_ACTIONS}`,
      p,
    );
    const pages = await this.reader.all(
      `SELECT path AS name, count(*) AS count ${EVENTS_IN} AND action IN (${PAGE_VIEW_SQL}) AND path IS NOT NULL
       GROUP BY path ORDER BY count DESC, name LIMIT $4`,
      top,
    );
    return { headline: headline!, actions, pages };
  }

  /** Events, visitors, actions and pages of a window with whole hours: $4, $5 the hours, $6 topN. */
  private async eventFigures(p: Param[]) {
    const five = p.slice(0, 5);
    const [headline] = await this.reader.all(
      `SELECT (SELECT coalesce(sum(events), 0) FROM rollup_events WHERE ${WHOLE_HOURS})
                + (SELECT count(*) FROM ${edges('1 AS one')}) AS events,
              (SELECT count(DISTINCT v) FROM (
                 SELECT visitor AS v FROM rollup_visitors WHERE ${WHOLE_HOURS}
                 UNION ALL SELECT v FROM ${edges('hash(ip, user_agent) AS v')})) AS visitors`,
      five,
    );
    const actions = await this.reader.all(
      `SELECT name, sum(n)::BIGINT AS count FROM (
         SELECT action AS name, events AS n FROM rollup_events WHERE ${WHOLE_HOURS}
         UNION ALL SELECT action, 1 FROM ${edges('action')})
       GROUP BY name ORDER BY count DESC, name LIMIT ${MAX_ACTIONS}`,
      five,
    );
    const pages = await this.reader.all(
      `SELECT name, sum(n)::BIGINT AS count FROM (
         SELECT path AS name, events AS n FROM rollup_events WHERE ${WHOLE_HOURS} AND path IS NOT NULL
         UNION ALL SELECT path, 1 FROM ${edges('path', ` AND action IN (${PAGE_VIEW_SQL}) AND path IS NOT NULL`)})
       GROUP BY name ORDER BY count DESC, name LIMIT $6`,
      p,
    );
    return { headline: headline!, actions, pages };
  }

  private async seriesWide(
    projectId: string,
    w: Window,
    bucketMs: number,
    refresh: () => Promise<void>,
  ): Promise<SeriesBucket[]> {
    const p = [projectId, w.start, w.end, checkBucket(bucketMs)];
    const split = bucketMs >= HOUR_MS ? splitWindow(w.start, w.end) : null;
    if (split) await refresh();
    const events = split
      ? await this.bucketsByHour(p, [projectId, w.start, w.end, split.lo, split.hi, bucketMs])
      : await this.reader.all(
          `SELECT ("timestamp" - $2) // $4 AS b, count(*) AS events, count(DISTINCT hash(ip, user_agent)) AS visitors ${EVENTS_IN} GROUP BY b`,
          p,
        );
    const sessions = await this.reader.all(
      `SELECT (last_event_at - $2) // $4 AS b, count(*) AS sessions ${SESSIONS_IN} GROUP BY b`,
      p,
    );
    return toSeries(w.start, bucketMs, events, sessions);
  }

  /**
   * Buckets of an hour or more: the events counted from the table (one column), the visitors
   * from the rollups' whole hours, each cut by at most one bucket start (rollups.ts), and the
   * partial hours' events.
   */
  private async bucketsByHour(p: Param[], split: Param[]): Promise<Array<Record<string, unknown>>> {
    const counts = await this.reader.all(
      `SELECT ("timestamp" - $2) // $4 AS b, count(*) AS events ${EVENTS_IN} GROUP BY b`,
      p,
    );
    const visitors = await this.reader.all(VISITORS_BY_BUCKET, split);
    const byBucket = new Map(visitors.map((r) => [toInt(r.b), r.visitors]));
    return counts.map((r) => ({ ...r, visitors: byBucket.get(toInt(r.b)) ?? 0 }));
  }

  private async transitionsWide(projectId: string, w: Window): Promise<TransitionCounts> {
    const split = splitWindow(w.start, w.end);
    if (split) {
      await this.refreshNow(projectId);
      return toTransitions(await this.reader.all(TRANSITIONS_BY_HOUR, [projectId, w.start, w.end, split.lo, split.hi]));
    }
    const rows = await this.reader.all(
      `WITH ev AS (
         SELECT action, lag(action) OVER w AS prev, lead(action) OVER w AS next
         ${EVENTS_IN} AND session_id IS NOT NULL
         WINDOW w AS (PARTITION BY session_id ORDER BY "timestamp", event_id))
       SELECT coalesce(prev, '${START_STATE}') AS from_state, action AS to_state, count(*) AS count FROM ev GROUP BY ALL
       UNION ALL
       SELECT action AS from_state, '${END_STATE}' AS to_state, count(*) AS count FROM ev WHERE next IS NULL GROUP BY ALL`,
      [projectId, w.start, w.end],
    );
    return toTransitions(rows);
  }

  private async countTaggedWide(projectId: string, tag: string, since: number): Promise<number> {
    const [row] = await this.reader.all(
      `SELECT count(*) AS n FROM (
         SELECT session_id FROM session_tag_facts WHERE project_id = $1 AND tag = $2 AND NOT removed
         GROUP BY session_id HAVING max(tagged_at) >= $3)`,
      [projectId, tag, since],
    );
    return Number(row!.n);
  }
}

/**
 * The matrix from the hours' segments and in-segment counts (rollups.ts), the partial hours'
 * events cut into segments the same way; a session's consecutive segments joined in hour order.
 */
const TRANSITIONS_BY_HOUR = `WITH edge AS ${edges('session_id, "timestamp", event_id, action', ' AND session_id IS NOT NULL')},
  seg AS (
    SELECT hour AS h, session_id, first_action AS fa, last_action AS la FROM rollup_segments WHERE ${WHOLE_HOURS}
    UNION ALL
    SELECT "timestamp" // ${HOUR_MS}, session_id, arg_min(action, ("timestamp", event_id)), arg_max(action, ("timestamp", event_id))
    FROM edge GROUP BY ALL),
  joined AS (
    SELECT fa, la, lag(la) OVER w AS pl, lead(fa) OVER w AS nf FROM seg
    WINDOW w AS (PARTITION BY session_id ORDER BY h))
SELECT from_state, to_state, sum(n)::BIGINT AS count FROM (
  SELECT from_action AS from_state, to_action AS to_state, n FROM rollup_cells WHERE ${WHOLE_HOURS}
  UNION ALL
  SELECT prev, action, 1 FROM (
    SELECT action, lag(action) OVER (PARTITION BY session_id, "timestamp" // ${HOUR_MS} ORDER BY "timestamp", event_id) AS prev
    FROM edge) WHERE prev IS NOT NULL
  UNION ALL SELECT coalesce(pl, '${START_STATE}'), fa, 1 FROM joined
  UNION ALL SELECT la, '${END_STATE}', 1 FROM joined WHERE nf IS NULL)
GROUP BY ALL`;

/** Visitors per bucket ($6 ms, an hour or more): `ks`/`ke` the buckets of an hour's first and last ms. */
const VISITORS_BY_BUCKET = `WITH r AS (
    SELECT visitor, first_at, last_at, (hour * ${HOUR_MS} - $2) // $6 AS ks, ((hour + 1) * ${HOUR_MS} - 1 - $2) // $6 AS ke
    FROM rollup_visitors WHERE ${WHOLE_HOURS})
SELECT b, count(DISTINCT v) AS visitors FROM (
  SELECT ks AS b, visitor AS v FROM r WHERE ks = ke OR first_at < $2 + ke * $6
  UNION ALL SELECT ke, visitor FROM r WHERE ks <> ke AND last_at >= $2 + ke * $6
  UNION ALL SELECT b, v FROM ${edges(`("timestamp" - $2) // $6 AS b, hash(ip, user_agent) AS v`)})
GROUP BY b`;
