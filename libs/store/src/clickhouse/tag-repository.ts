import type { SessionTag } from '@spoor/schemas';
import type { ListQuery, TagRepository } from '../store.js';
import { checkLimit, MAX_MS, MIN_MS } from '../column-values.js';
import { latestPerFact, rowToSessionTag, rowToTagSeen, rowToTaggedSession, tagToRow } from '../tag-row.js';
import type { ClickHouseConnection, Params } from './clickhouse-connection.js';

/**
 * Each fact's surviving version, as (removed, tagged_at): the row a merge of
 * ReplacingMergeTree(changed_at) keeps, the greatest changed_at and, on a tie, the last insert
 * (migrations.ts, step 3), which FINAL picks among the versions not merged yet. `where` names
 * key columns only, which FINAL filters before it picks. "Standing" is decided after the pick:
 * filtering `removed` before it would let an older standing version outlive the removal that
 * replaced it. (This was argMax((removed, tagged_at), (changed_at, _written)) grouped by fact
 * until issue 15's ninth round: the same row, but a tag's sessions cost 1.3–1.5× as much on
 * the chDB stand-in; `_written` stays in the table.)
 */
const latestFacts = (table: string, where: string): string =>
  `SELECT tag, session_id, (removed, tagged_at) AS fact FROM ${table} FINAL WHERE ${where}`;

export class ClickHouseTagRepository implements TagRepository {
  constructor(private readonly ch: ClickHouseConnection) {}

  async add(tags: SessionTag[]): Promise<void> {
    // Rows of one insert share one `_written`, so the batch's own ties are settled here.
    await this.ch.insert('session_tag_facts', latestPerFact(tags).map(tagToRow));
  }

  async list(projectId: string): Promise<Array<{ tag: string; last_seen: number }>> {
    const rows = await this.standing(
      'tag, max(fact.2) AS last_seen',
      'project_id = {project_id:String}',
      'tag',
      'last_seen DESC, tag',
      { project_id: projectId },
    );
    return rows.map(rowToTagSeen);
  }

  async ofSession(projectId: string, sessionId: string): Promise<Array<{ tag: string; last_seen: number }>> {
    const rows = await this.standing(
      'tag, max(fact.2) AS last_seen',
      'project_id = {project_id:String} AND session_id = {session_id:String}',
      'tag',
      'last_seen DESC, tag',
      { project_id: projectId, session_id: sessionId },
    );
    return rows.map(rowToTagSeen);
  }

  async ofSessions(
    projectId: string,
    sessionIds: string[],
  ): Promise<Array<{ session_id: string; tag: string; last_seen: number }>> {
    if (sessionIds.length === 0) return [];
    const rows = await this.standing(
      'session_id, tag, max(fact.2) AS last_seen',
      'project_id = {project_id:String} AND session_id IN {session_ids:Array(String)}',
      'session_id, tag',
      'session_id, last_seen DESC, tag',
      { project_id: projectId, session_ids: sessionIds },
    );
    return rows.map(rowToSessionTag);
  }

  /**
   * The window applies to each session's tagged_at over its standing facts (HAVING). Nothing is
   * pruned on tagged_at before the pick: a fact's latest version can carry an older tagged_at
   * (or a removal) than a version it replaced.
   */
  async sessions(
    projectId: string,
    tag: string,
    q: ListQuery,
  ): Promise<Array<{ session_id: string; tagged_at: number }>> {
    const rows = await this.standing(
      'session_id, max(fact.2) AS latest',
      'project_id = {project_id:String} AND tag = {tag:String}',
      'session_id HAVING latest >= {start:Int64} AND latest < {end:Int64}',
      'latest DESC, session_id LIMIT {limit:UInt64}',
      {
        project_id: projectId,
        tag,
        start: q.window_start ?? MIN_MS,
        end: q.window_end ?? MAX_MS,
        limit: checkLimit(q.limit),
      },
    );
    return rows.map((r) => rowToTaggedSession({ session_id: r.session_id, tagged_at: r.latest }));
  }

  private standing(select: string, where: string, groupBy: string, orderBy: string, params: Params) {
    return this.ch.rows(
      `SELECT ${select} FROM (${latestFacts(this.ch.table('session_tag_facts'), where)})
       WHERE NOT fact.1 GROUP BY ${groupBy} ORDER BY ${orderBy}`,
      params,
    );
  }
}
