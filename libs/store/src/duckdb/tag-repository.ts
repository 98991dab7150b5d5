import type { SessionTag } from '@spoor/schemas';
import type { ListQuery, TagRepository } from '../store.js';
import { checkLimit, MAX_MS, MIN_MS } from '../column-values.js';
import { latestPerTag, rowToTagSeen, rowToTaggedSession } from '../tag-row.js';
import type { DuckColumns, DuckDbConnection } from './duckdb-connection.js';

const COLUMNS: DuckColumns = [['project_id', 'VARCHAR'], ['session_id', 'VARCHAR'], ['tag', 'VARCHAR'], ['tagged_at', 'BIGINT']];
const LIST = 'project_id, session_id, tag, tagged_at';

export class DuckDbTagRepository implements TagRepository {
  constructor(private readonly writer: DuckDbConnection, private readonly reader: DuckDbConnection) {}

  async add(tags: SessionTag[]): Promise<void> {
    // One row per key first, for the DuckDB 1.5 ON CONFLICT quirk noted in touchActions.
    const rows = latestPerTag(tags);
    if (rows.length === 0) return;
    await this.writer.exclusive(async (x) => {
      await x.stage('stage_session_tags', 'session_tags', COLUMNS, rows.map((t) => ({ ...t })));
      await x.run(
        `INSERT INTO session_tags (${LIST}) SELECT ${LIST} FROM stage_session_tags
         ON CONFLICT (project_id, session_id, tag)
         DO UPDATE SET tagged_at = greatest(session_tags.tagged_at, excluded.tagged_at)`,
      );
    });
  }

  async list(projectId: string): Promise<Array<{ tag: string; last_seen: number }>> {
    const rows = await this.reader.all(
      `SELECT tag, max(tagged_at) AS last_seen FROM session_tags WHERE project_id = $1
       GROUP BY tag ORDER BY last_seen DESC, tag`,
      [projectId],
    );
    return rows.map(rowToTagSeen);
  }

  async ofSession(projectId: string, sessionId: string): Promise<Array<{ tag: string; last_seen: number }>> {
    const rows = await this.reader.all(
      `SELECT tag, tagged_at AS last_seen FROM session_tags WHERE project_id = $1 AND session_id = $2
       ORDER BY tagged_at DESC, tag`,
      [projectId, sessionId],
    );
    return rows.map(rowToTagSeen);
  }

  async sessions(projectId: string, tag: string, q: ListQuery): Promise<Array<{ session_id: string; tagged_at: number }>> {
    const rows = await this.reader.all(
      `SELECT session_id, tagged_at FROM session_tags
       WHERE project_id = $1 AND tag = $2 AND tagged_at >= $3 AND tagged_at < $4
       ORDER BY tagged_at DESC, session_id LIMIT $5`,
      [projectId, tag, q.window_start ?? MIN_MS, q.window_end ?? MAX_MS, checkLimit(q.limit)],
    );
    return rows.map(rowToTaggedSession);
  }
}
