import type { SessionTag } from '@spoor/schemas';
import type { ListQuery, TagRepository } from '../store.js';
import { checkLimit, MAX_MS, MIN_MS } from '../column-values.js';
import { rowToTagSeen, rowToTaggedSession } from '../tag-row.js';
import type { ClickHouseConnection } from './clickhouse-connection.js';

// ReplacingMergeTree(tagged_at) keeps the greatest tagged_at of a (project, tag, session), so
// max(tagged_at) over every stored version is the surviving one: the reads aggregate instead
// of saying FINAL, which gives the same answer without merging at query time.
export class ClickHouseTagRepository implements TagRepository {
  constructor(private readonly ch: ClickHouseConnection) {}

  async add(tags: SessionTag[]): Promise<void> {
    await this.ch.insert('session_tags', tags.map((t) => ({
      project_id: t.project_id, tag: t.tag, session_id: t.session_id, tagged_at: t.tagged_at,
    })));
  }

  async list(projectId: string): Promise<Array<{ tag: string; last_seen: number }>> {
    const rows = await this.ch.rows(
      `SELECT tag, max(tagged_at) AS last_seen FROM ${this.ch.table('session_tags')}
       WHERE project_id = {project_id:String} GROUP BY tag ORDER BY last_seen DESC, tag`,
      { project_id: projectId },
    );
    return rows.map(rowToTagSeen);
  }

  async ofSession(projectId: string, sessionId: string): Promise<Array<{ tag: string; last_seen: number }>> {
    const rows = await this.ch.rows(
      `SELECT tag, max(tagged_at) AS last_seen FROM ${this.ch.table('session_tags')}
       WHERE project_id = {project_id:String} AND session_id = {session_id:String}
       GROUP BY tag ORDER BY last_seen DESC, tag`,
      { project_id: projectId, session_id: sessionId },
    );
    return rows.map(rowToTagSeen);
  }

  /**
   * The window applies to each session's latest tagged_at (HAVING), never to an older version.
   * The WHERE lower bound only prunes: a key whose latest version is at or after the start
   * keeps that version, and a key with none there is out of the window anyway.
   */
  async sessions(projectId: string, tag: string, q: ListQuery): Promise<Array<{ session_id: string; tagged_at: number }>> {
    const rows = await this.ch.rows(
      `SELECT session_id, max(tagged_at) AS latest FROM ${this.ch.table('session_tags')}
       WHERE project_id = {project_id:String} AND tag = {tag:String} AND tagged_at >= {start:Int64}
       GROUP BY session_id
       HAVING latest >= {start:Int64} AND latest < {end:Int64}
       ORDER BY latest DESC, session_id LIMIT {limit:UInt64}`,
      { project_id: projectId, tag, start: q.window_start ?? MIN_MS, end: q.window_end ?? MAX_MS, limit: checkLimit(q.limit) },
    );
    return rows.map((r) => rowToTaggedSession({ session_id: r.session_id, tagged_at: r.latest }));
  }
}
