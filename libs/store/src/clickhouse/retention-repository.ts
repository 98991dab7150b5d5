// Retention cohorts in ClickHouse SQL: the DuckDB repository's formulation (issue 18).
import type { RetentionCohort, RetentionRepository, RetentionSpec } from '../funnel-query.js';
import { periodsOf, toCohorts } from '../retention-rows.js';
import type { ClickHouseConnection } from './clickhouse-connection.js';

export class ClickHouseRetentionRepository implements RetentionRepository {
  constructor(private readonly ch: ClickHouseConnection) {}

  async cohorts(projectId: string, spec: RetentionSpec): Promise<RetentionCohort[]> {
    periodsOf(spec);
    const events = this.ch.table('enriched_events');
    const rows = await this.ch.rows(
      `WITH v AS (
         SELECT cityHash64(ip, user_agent) AS u, intDiv(min(timestamp) - {start:Int64}, {period:Int64}) AS c FROM ${events} FINAL
         WHERE project_id = {project_id:String} AND timestamp < {end:Int64} AND NOT bot GROUP BY u HAVING min(timestamp) >= {start:Int64}),
       a AS (
         SELECT DISTINCT cityHash64(ip, user_agent) AS u, intDiv(timestamp - {start:Int64}, {period:Int64}) AS p FROM ${events} FINAL
         WHERE project_id = {project_id:String} AND timestamp >= {start:Int64} AND timestamp < {end:Int64} AND NOT bot
           ${spec.action === null ? '' : 'AND action = {action:String}'})
       SELECT c, 0 AS k, count() AS n FROM v GROUP BY c
       UNION ALL
       SELECT v.c AS c, a.p - v.c AS k, count() AS n FROM v INNER JOIN a USING (u) WHERE a.p > v.c GROUP BY c, k`,
      {
        project_id: projectId,
        start: spec.window.start,
        end: spec.window.end,
        period: spec.periodMs,
        ...(spec.action === null ? {} : { action: spec.action }),
      },
    );
    return toCohorts(spec, rows);
  }
}
