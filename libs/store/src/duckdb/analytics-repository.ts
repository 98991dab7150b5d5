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
import type { DuckReader } from './duckdb-connection.js';

const EVENTS_IN = `FROM enriched_events WHERE project_id = $1 AND "timestamp" >= $2 AND "timestamp" < $3 AND NOT bot`;
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
 * Aggregates in DuckDB SQL. Each figure is one scan of the project's rows in the window;
 * DuckDB prunes the window with its zone maps (migrations.ts) and runs the scans one after
 * another on the reader connection.
 */
export class DuckDbAnalyticsRepository implements AnalyticsRepository {
  constructor(private readonly reader: DuckReader) {}

  async aggregate(projectId: string, w: Window, topN: number): Promise<WindowAggregates> {
    const p = [projectId, w.start, w.end];
    const top = [...p, checkLimit(topN)];
    const [events] = await this.reader.all(
      `SELECT count(*) AS events, count(DISTINCT hash(ip, user_agent)) AS visitors ${EVENTS_IN}`,
      p,
    );
    const [sessions] = await this.reader.all(
      `SELECT count(*) AS sessions, count(*) FILTER (WHERE page_count <= 1) AS bounces,
              quantile_cont(duration_ms, 0.5) AS p50, quantile_cont(duration_ms, 0.9) AS p90, quantile_cont(duration_ms, 0.99) AS p99
       ${SESSIONS_IN}`,
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
      ...toHeadline(events!, sessions!),
      actions: toRanked(actions),
      pages: toRanked(pages),
      ...dims,
      tags: toRanked(tags),
    };
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
