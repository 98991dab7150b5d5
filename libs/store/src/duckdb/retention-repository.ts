// Retention cohorts in DuckDB SQL (issue 18; docs/analytics.md): each visitor's first event
// ever (before the window's end) names its cohort; its distinct active periods in the window
// say when it came back.
import type { RetentionCohort, RetentionRepository, RetentionSpec } from '../funnel-query.js';
import { periodsOf, toCohorts } from '../retention-rows.js';
import type { DuckReader } from './duckdb-connection.js';
import type { Wide } from './duckdb-threads.js';

export class DuckDbRetentionRepository implements RetentionRepository {
  constructor(
    private readonly reader: DuckReader,
    private readonly wide: Wide,
  ) {}

  /** On a wide engine: retention scans the events before the window's end (duckdb-threads.ts). */
  cohorts(projectId: string, spec: RetentionSpec): Promise<RetentionCohort[]> {
    return this.wide(() => this.cohortsWide(projectId, spec));
  }

  private async cohortsWide(projectId: string, spec: RetentionSpec): Promise<RetentionCohort[]> {
    periodsOf(spec);
    const params = [
      projectId,
      spec.window.start,
      spec.window.end,
      spec.periodMs,
      ...(spec.action === null ? [] : [spec.action]),
    ];
    const rows = await this.reader.all(
      `WITH v AS (
         SELECT hash(ip, user_agent) AS u, (min("timestamp") - $2) // $4 AS c FROM enriched_events
         WHERE project_id = $1 AND "timestamp" < $3 AND NOT bot GROUP BY u HAVING min("timestamp") >= $2),
       a AS (
         SELECT DISTINCT hash(ip, user_agent) AS u, ("timestamp" - $2) // $4 AS p FROM enriched_events
         WHERE project_id = $1 AND "timestamp" >= $2 AND "timestamp" < $3 AND NOT bot ${spec.action === null ? '' : 'AND action = $5'})
       SELECT c, 0 AS k, count(*) AS n FROM v GROUP BY c
       UNION ALL
       SELECT v.c, a.p - v.c AS k, count(*) AS n FROM v JOIN a USING (u) WHERE a.p > v.c GROUP BY ALL`,
      params,
    );
    return toCohorts(spec, rows);
  }
}
