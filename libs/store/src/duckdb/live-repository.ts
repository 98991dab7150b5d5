// The live view in DuckDB SQL (issue 18): the window is minutes, so the zone maps on
// "timestamp" (events are stored in about the order they arrive) leave a few row groups to scan.
import { checkLiveSpec, toLiveCounts, type LiveCounts, type LiveRepository, type LiveSpec } from '../live-query.js';
import type { DuckReader } from './duckdb-connection.js';

const ACTIVE = `FROM enriched_events WHERE project_id = $1 AND "timestamp" >= $2 AND NOT bot`;

export class DuckDbLiveRepository implements LiveRepository {
  constructor(private readonly reader: DuckReader) {}

  async snapshot(projectId: string, spec: LiveSpec): Promise<LiveCounts> {
    const { since, topPages, latest } = checkLiveSpec(spec);
    const [head] = await this.reader.all(`SELECT count(DISTINCT session_id) AS visitors ${ACTIVE}`, [projectId, since]);
    const pages = await this.reader.all(
      `SELECT path, count(*) AS visitors FROM (
         SELECT session_id, arg_max(path, ("timestamp", event_id)) AS path ${ACTIVE} AND path IS NOT NULL AND session_id IS NOT NULL GROUP BY session_id)
       GROUP BY path ORDER BY visitors DESC, path LIMIT $3`,
      [projectId, since, topPages],
    );
    const events = await this.reader.all(
      `SELECT event_id, action, path, "timestamp", session_id, browser_name AS browser, os_name AS os,
              coalesce(device_type, 'desktop') AS device, geo_country AS country
       ${ACTIVE} ORDER BY "timestamp" DESC, event_id DESC LIMIT $3`,
      [projectId, since, latest],
    );
    return toLiveCounts(head?.['visitors'], pages, events);
  }
}
