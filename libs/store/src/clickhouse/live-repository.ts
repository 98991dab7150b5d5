// The live view in ClickHouse SQL: the DuckDB repository's formulation (issue 18). The minmax
// index on timestamp skips the granules older than the window; FINAL keeps a redelivered event
// from counting twice.
import { checkLiveSpec, toLiveCounts, type LiveCounts, type LiveRepository, type LiveSpec } from '../live-query.js';
import type { ClickHouseConnection } from './clickhouse-connection.js';

export class ClickHouseLiveRepository implements LiveRepository {
  constructor(private readonly ch: ClickHouseConnection) {}

  async snapshot(projectId: string, spec: LiveSpec): Promise<LiveCounts> {
    const { since, topPages, latest } = checkLiveSpec(spec);
    const active = `FROM ${this.ch.table('enriched_events')} FINAL WHERE project_id = {project_id:String} AND timestamp >= {since:Int64} AND NOT bot`;
    const p = { project_id: projectId, since, top: topPages, latest };
    const [head] = await this.ch.rows(`SELECT uniqExact(session_id) AS visitors ${active}`, p);
    const pages = await this.ch.rows(
      `SELECT current AS path, count() AS visitors FROM (
         SELECT session_id, argMax(assumeNotNull(path), (timestamp, event_id)) AS current ${active} AND path IS NOT NULL AND session_id IS NOT NULL GROUP BY session_id)
       GROUP BY current ORDER BY visitors DESC, current LIMIT {top:UInt64}`,
      p,
    );
    const events = await this.ch.rows(
      `SELECT event_id, toString(action) AS action, path, timestamp, session_id, browser_name AS browser, os_name AS os,
              coalesce(device_type, 'desktop') AS device, geo_country AS country
       ${active} ORDER BY timestamp DESC, event_id DESC LIMIT {latest:UInt64}`,
      p,
    );
    return toLiveCounts(head?.['visitors'], pages, events);
  }
}
