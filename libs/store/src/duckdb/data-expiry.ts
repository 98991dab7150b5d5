// Retention days in the embedded mode (issue 17, docs/data.md): one transaction of DELETEs per
// project, so a reader sees a session's tags and verdict go together with the session.
import type { DataExpired, DataExpiry } from '../data-ownership.js';
import { toInt } from '../column-values.js';
import { EXPIRED_PREV_HOURS, FRESH_OF_PROJECT, ROLLUP_TABLES, markWhere, refreshHeld } from './rollups.js';
import type { DuckDbConnection } from './duckdb-connection.js';
import type { Wide } from './duckdb-threads.js';

const EXPIRED_SESSIONS = 'SELECT session_id FROM sessions WHERE project_id = $1 AND last_event_at < $2';

export class DuckDbDataExpiry implements DataExpiry {
  constructor(
    private readonly writer: DuckDbConnection,
    private readonly wide: Wide,
  ) {}

  expire(projectId: string, before: number): Promise<DataExpired> {
    return this.wide(() => this.expireHeld(projectId, before));
  }

  private async expireHeld(projectId: string, before: number): Promise<DataExpired> {
    return this.writer.exclusive(async (x) => {
      const [oldest] = await x.all(
        `SELECT least((SELECT min("timestamp") FROM events WHERE project_id = $1 AND "timestamp" < $2),
                      (SELECT min(last_event_at) FROM sessions WHERE project_id = $1 AND last_event_at < $2)) AS start`,
        [projectId, before],
      );
      await x.transaction(async () => {
        // `events` holds the raw and the enriched half of each event in one row (migration step 7).
        // The hour `before` cuts is rebuilt by the next job; the hours before it go (rollups.ts).
        await x.run(markWhere('project_id = $1 AND "timestamp" < $2 AND "timestamp" >= $2 // 3600000 * 3600000'), [
          projectId,
          before,
        ]);
        for (const table of ROLLUP_TABLES) {
          await x.run(`DELETE FROM ${table} WHERE project_id = $1 AND hour < $2 // 3600000`, [projectId, before]);
        }
        // A page visitor last seen in an hour gone is as one never seen before (rollups.ts).
        for (const sql of EXPIRED_PREV_HOURS) await x.run(sql, [projectId, before]);
        for (const sql of FRESH_OF_PROJECT) await x.run(sql, [projectId]);
        await x.run('DELETE FROM events WHERE project_id = $1 AND "timestamp" < $2', [projectId, before]);
        // The keys of those events (each key row carries its event's timestamp; migration step 9).
        await x.run('DELETE FROM event_keys WHERE project_id = $1 AND "timestamp" < $2', [projectId, before]);
        // A session's tags and verdict go before the session that names them.
        await x.run(`DELETE FROM session_tag_facts WHERE project_id = $1 AND session_id IN (${EXPIRED_SESSIONS})`, [
          projectId,
          before,
        ]);
        await x.run(
          `DELETE FROM session_classifications WHERE project_id = $1 AND session_id IN (${EXPIRED_SESSIONS})`,
          [projectId, before],
        );
        await x.run('DELETE FROM sessions WHERE project_id = $1 AND last_event_at < $2', [projectId, before]);
      });
      // The cut hour's rollups at once, without the expired events.
      await refreshHeld(x, projectId);
      const start = oldest?.start;
      return { window: start === null || start === undefined ? null : { start: toInt(start), end: before } };
    });
  }
}
