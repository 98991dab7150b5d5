import type { AnalyticsRepository, SeriesBucket, TransitionCounts, Window, WindowAggregates } from '../store.js';
import { checkLimit } from '../column-values.js';
import {
  END_STATE,
  MAX_ACTIONS,
  PAGE_VIEW_SQL,
  START_STATE,
  checkBucket,
  toHeadline,
  toRanked,
  toSeries,
  toTransitions,
  type SessionDimension,
} from '../analytics-row.js';
import type { DuckDbConnection, DuckReader, Param } from './duckdb-connection.js';
import { HOUR_MS, refreshRollups, splitWindow } from './rollups.js';

const EVENTS_IN = `FROM enriched_events WHERE project_id = $1 AND "timestamp" >= $2 AND "timestamp" < $3 AND NOT bot`;
/** Rollup rows of the window's whole hours, [$4, $5) (rollups.ts). */
const WHOLE_HOURS = 'project_id = $1 AND hour >= $4 AND hour < $5';
/** The window's events outside its whole hours: [$2, $4·H) and [$5·H, $3). */
const edges = (cols: string, more = '') =>
  `(SELECT ${cols} FROM enriched_events WHERE project_id = $1 AND "timestamp" >= $2 AND "timestamp" < $4::BIGINT * ${HOUR_MS} AND NOT bot${more}
    UNION ALL
    SELECT ${cols} FROM enriched_events WHERE project_id = $1 AND "timestamp" >= $5::BIGINT * ${HOUR_MS} AND "timestamp" < $3 AND NOT bot${more})`;

const SESSIONS_IN = 'FROM sessions WHERE project_id = $1 AND last_event_at >= $2 AND last_event_at < $3';

/** A referrer's host, or the referrer as sent when it is no URL; device types missing in ua-parser mean a desktop. */
const DIMENSIONS: Record<SessionDimension, string> = {
  referrers: `coalesce(nullif(regexp_extract(referrer, '^[A-Za-z][A-Za-z0-9+.-]*://([^/?#:]+)', 1), ''), referrer)`,
  utm_sources: 'utm_source',
  countries: 'geo_country',
  browsers: 'browser_name',
  devices: `coalesce(device_type, 'desktop')`,
};

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
  ) {}

  /** Brings the project's rollups up to date with every write before this call. */
  refresh(projectId: string): Promise<void> {
    return this.writer.exclusive((x) => refreshRollups(x, projectId));
  }

  async aggregate(projectId: string, w: Window, topN: number): Promise<WindowAggregates> {
    const p = [projectId, w.start, w.end];
    const top = [...p, checkLimit(topN)];
    const split = splitWindow(w.start, w.end);
    if (split) await this.refresh(projectId);
    const events = split ? await this.eventFigures([...p, split.lo, split.hi, checkLimit(topN)]) : null;
    const [headline] = events
      ? [events.headline]
      : await this.reader.all(
          `SELECT count(*) AS events, count(DISTINCT hash(ip, user_agent)) AS visitors ${EVENTS_IN}`,
          p,
        );
    const [sessions] = await this.reader.all(
      `SELECT count(*) AS sessions, count(*) FILTER (WHERE page_count <= 1) AS bounces,
              quantile_cont(duration_ms, 0.5) AS p50, quantile_cont(duration_ms, 0.9) AS p90, quantile_cont(duration_ms, 0.99) AS p99
       ${SESSIONS_IN}`,
      p,
    );
    const actions =
      events?.actions ??
      (await this.reader.all(
        `SELECT action AS name, count(*) AS count ${EVENTS_IN} GROUP BY action ORDER BY count DESC, name LIMIT ${MAX_ACTIONS}`,
        p,
      ));
    const pages =
      events?.pages ??
      (await this.reader.all(
        `SELECT path AS name, count(*) AS count ${EVENTS_IN} AND action IN (${PAGE_VIEW_SQL}) AND path IS NOT NULL
         GROUP BY path ORDER BY count DESC, name LIMIT $4`,
        top,
      ));
    const dims = {} as Record<SessionDimension, Array<{ name: string; count: number }>>;
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
      ...toHeadline(headline!, sessions!),
      actions: toRanked(actions),
      pages: toRanked(pages),
      ...dims,
      tags: toRanked(tags),
    };
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

  async series(projectId: string, w: Window, bucketMs: number): Promise<SeriesBucket[]> {
    const p = [projectId, w.start, w.end, checkBucket(bucketMs)];
    const events = await this.reader.all(
      `SELECT ("timestamp" - $2) // $4 AS b, count(*) AS events, count(DISTINCT hash(ip, user_agent)) AS visitors ${EVENTS_IN} GROUP BY b`,
      p,
    );
    const sessions = await this.reader.all(
      `SELECT (last_event_at - $2) // $4 AS b, count(*) AS sessions ${SESSIONS_IN} GROUP BY b`,
      p,
    );
    return toSeries(w.start, bucketMs, events, sessions);
  }

  async transitions(projectId: string, w: Window): Promise<TransitionCounts> {
    const split = splitWindow(w.start, w.end);
    if (split) {
      await this.refresh(projectId);
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

  async countTagged(projectId: string, tag: string, since: number): Promise<number> {
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
