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
import type { ClickHouseConnection } from './clickhouse-connection.js';

const WINDOW = 'project_id = {project_id:String} AND {start:Int64} <= %c AND %c < {end:Int64}';

const DIMENSIONS: Record<SessionDimension, string> = {
  referrers: `if(domain(referrer) = '', referrer, domain(referrer))`,
  utm_sources: 'utm_source',
  countries: 'geo_country',
  browsers: 'browser_name',
  devices: `coalesce(device_type, 'desktop')`,
};

/**
 * Aggregates in ClickHouse SQL. Events and sessions are ReplacingMergeTrees, so each read says
 * FINAL: a redelivered event or an older session version must not count twice.
 */
export class ClickHouseAnalyticsRepository implements AnalyticsRepository {
  constructor(private readonly ch: ClickHouseConnection) {}

  private eventsIn(): string {
    return `FROM ${this.ch.table('enriched_events')} FINAL WHERE ${WINDOW.replaceAll('%c', 'timestamp')} AND NOT bot`;
  }

  private sessionsIn(): string {
    return `FROM ${this.ch.table('sessions')} FINAL WHERE ${WINDOW.replaceAll('%c', 'last_event_at')}`;
  }

  async aggregate(projectId: string, w: Window, topN: number): Promise<WindowAggregates> {
    const p = { project_id: projectId, start: w.start, end: w.end, top: checkLimit(topN) };
    const [events] = await this.ch.rows(
      `SELECT count() AS events, uniqExact(ip, user_agent) AS visitors ${this.eventsIn()}`,
      p,
    );
    const [sessions] = await this.ch.rows(
      `SELECT count() AS sessions, countIf(page_count <= 1) AS bounces,
              quantileExactInclusive(0.5)(toFloat64(duration_ms)) AS p50, quantileExactInclusive(0.9)(toFloat64(duration_ms)) AS p90,
              quantileExactInclusive(0.99)(toFloat64(duration_ms)) AS p99
       ${this.sessionsIn()}`,
      p,
    );
    const actions = await this.ch.rows(
      `SELECT toString(action) AS name, count() AS count ${this.eventsIn()} GROUP BY name ORDER BY count DESC, name LIMIT ${MAX_ACTIONS}`,
      p,
    );
    const pages = await this.ch.rows(
      `SELECT assumeNotNull(path) AS name, count() AS count ${this.eventsIn()} AND action IN (${PAGE_VIEW_SQL}) AND path IS NOT NULL
       GROUP BY name ORDER BY count DESC, name LIMIT {top:UInt64}`,
      p,
    );
    const dims = {} as Record<SessionDimension, Array<{ name: string; count: number }>>;
    for (const [key, expr] of Object.entries(DIMENSIONS) as Array<[SessionDimension, string]>) {
      dims[key] = toRanked(
        await this.ch.rows(
          `SELECT toString(assumeNotNull(${expr})) AS name, count() AS count ${this.sessionsIn()} AND (${expr}) IS NOT NULL
         GROUP BY name HAVING name <> '' ORDER BY count DESC, name LIMIT {top:UInt64}`,
          p,
        ),
      );
    }
    const tags = await this.ch.rows(
      `SELECT tag AS name, uniqExact(session_id) AS count FROM (
         SELECT tag, session_id, argMax(removed, (changed_at, _written)) AS removed
         FROM ${this.ch.table('session_tag_facts')} WHERE project_id = {project_id:String} GROUP BY tag, session_id, source)
       WHERE NOT removed AND session_id IN (SELECT session_id ${this.sessionsIn()})
       GROUP BY tag ORDER BY count DESC, name LIMIT {top:UInt64}`,
      p,
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
    const p = { project_id: projectId, start: w.start, end: w.end, bucket: checkBucket(bucketMs) };
    const events = await this.ch.rows(
      `SELECT intDiv(timestamp - {start:Int64}, {bucket:Int64}) AS b, count() AS events, uniqExact(ip, user_agent) AS visitors ${this.eventsIn()} GROUP BY b`,
      p,
    );
    const sessions = await this.ch.rows(
      `SELECT intDiv(last_event_at - {start:Int64}, {bucket:Int64}) AS b, count() AS sessions ${this.sessionsIn()} GROUP BY b`,
      p,
    );
    return toSeries(w.start, bucketMs, events, sessions);
  }

  /** Row numbers mark each session's first and last event, so no action name can pose as a boundary. */
  async transitions(projectId: string, w: Window): Promise<TransitionCounts> {
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
