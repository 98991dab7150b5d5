import type { SessionListItem, SessionState } from '@spoor/schemas';
import type { ListQuery, SessionRepository, SessionSpan } from '../store.js';
import { checkLimit, MAX_MS, MIN_MS, toInt } from '../column-values.js';
import { SESSION_COLUMNS, latestPerSession, rowToSession, rowToSessionSpan, sessionToRow } from '../session-row.js';
import type { ClickHouseConnection, Params, Row } from './clickhouse-connection.js';
import { newestSessions, newestSessionsFrom } from './session-activity-page.js';
import { PageCuts } from '../page-cuts.js';

const LIST = SESSION_COLUMNS.join(', ');

/** attributes and classification are String JSON; actions (Map), tags and seen (Array) stay native. */
function encode(row: Row): Row {
  return {
    ...row,
    attributes: JSON.stringify(row.attributes),
    classification: row.classification === null ? null : JSON.stringify(row.classification),
  };
}

/**
 * Deletes every version of the sessions `where` matches. A mutation, not a lightweight DELETE:
 * the table's projections refuse those (migrations.ts, step 9). Waits until the parts are
 * rewritten, so the rows have left every read when it returns, as a lightweight DELETE's have.
 */
export function deleteSessions(ch: ClickHouseConnection, where: string, params: Params): Promise<void> {
  return ch.command(`ALTER TABLE ${ch.table('sessions')} DELETE WHERE ${where} SETTINGS mutations_sync = 2`, params);
}

export class ClickHouseSessionRepository implements SessionRepository {
  /** Where recent pages by last activity ended: a page read again is one query, not two. */
  private readonly cuts = new PageCuts();

  constructor(private readonly ch: ClickHouseConnection) {}

  async upsert(sessions: SessionState[]): Promise<void> {
    // Rows of one insert tie on updated_at in arbitrary ways, so pick the winner here.
    await this.ch.insert(
      'sessions',
      latestPerSession(sessions).map((s) => encode(sessionToRow(s))),
    );
  }

  async get(projectId: string, sessionId: string): Promise<SessionState | null> {
    const row = await this.byId(LIST, projectId, sessionId);
    return row ? rowToSession(row) : null;
  }

  async span(projectId: string, sessionId: string): Promise<SessionSpan | null> {
    const row = await this.byId('first_event_at, last_event_at', projectId, sessionId);
    return row ? rowToSessionSpan(row) : null;
  }

  /** One session's latest `columns`, by the table's key. */
  private async byId(columns: string, projectId: string, sessionId: string): Promise<Row | undefined> {
    const [row] = await this.ch.rows(
      `SELECT ${columns} FROM ${this.ch.table('sessions')} FINAL
       WHERE project_id = {project_id:String} AND session_id = {session_id:String}`,
      { project_id: projectId, session_id: sessionId },
    );
    return row;
  }

  async getMany(projectId: string, sessionIds: string[]): Promise<SessionState[]> {
    if (sessionIds.length === 0) return [];
    const rows = await this.ch.rows(
      `SELECT ${LIST} FROM ${this.ch.table('sessions')} FINAL
       WHERE project_id = {project_id:String} AND session_id IN {session_ids:Array(String)}
       ORDER BY session_id`,
      { project_id: projectId, session_ids: sessionIds },
    );
    return rows.map(rowToSession);
  }

  /**
   * By last activity, from the projections of step 9: a few granules, not every summary of the
   * project. A page read again starts where it ended last time (one query instead of the hour
   * counts and the slice), and is read whole when that finds fewer than its limit.
   */
  list(projectId: string, q: ListQuery): Promise<SessionListItem[]> {
    const window = { start: q.window_start ?? MIN_MS, end: q.window_end ?? MAX_MS };
    const limit = checkLimit(q.limit);
    return this.cuts.page(
      [projectId, window.start, window.end, limit],
      limit,
      (from) =>
        from === null
          ? newestSessions(this.ch, projectId, window, limit)
          : newestSessionsFrom(this.ch, projectId, window, limit, from),
      (s) => s.last_event_at,
    );
  }

  async page(projectId: string, afterSessionId: string | null, limit: number): Promise<SessionState[]> {
    const after = afterSessionId === null ? '' : 'AND session_id > {after:String}';
    const rows = await this.ch.rows(
      `SELECT ${LIST} FROM ${this.ch.table('sessions')} FINAL
       WHERE project_id = {project_id:String} ${after}
       ORDER BY session_id LIMIT {limit:UInt64}`,
      {
        project_id: projectId,
        limit: checkLimit(limit),
        ...(afterSessionId === null ? {} : { after: afterSessionId }),
      },
    );
    return rows.map(rowToSession);
  }

  /** Every stored row of a key is a version of one session, so distinct ids count without FINAL. */
  async count(projectId: string): Promise<number> {
    const [row] = await this.ch.rows(
      `SELECT uniqExact(session_id) AS n FROM ${this.ch.table('sessions')} WHERE project_id = {project_id:String}`,
      { project_id: projectId },
    );
    return toInt(row?.n ?? 0);
  }
}
