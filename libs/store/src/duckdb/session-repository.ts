import type { SessionListItem, SessionState } from '@spoor/schemas';
import type { ListQuery, SessionRepository, SessionSpan } from '../store.js';
import { checkLimit, MAX_MS, MIN_MS, toInt } from '../column-values.js';
import {
  SESSION_COLUMNS,
  latestPerSession,
  rowToSession,
  rowToSessionListItem,
  rowToSessionSpan,
  sessionToRow,
} from '../session-row.js';
import {
  quote,
  type DuckColumnType,
  type DuckColumns,
  type DuckDbConnection,
  type DuckReader,
} from './duckdb-connection.js';
import { PageCuts } from '../page-cuts.js';
import { DERIVED_LIST, DERIVED_SET, DERIVED_VALUES } from './session-derived.js';
import { markSessionHours } from './rollups.js';

const COLUMN_TYPES: Record<string, DuckColumnType> = {
  first_event_at: 'BIGINT',
  last_event_at: 'BIGINT',
  duration_ms: 'BIGINT',
  event_count: 'BIGINT',
  page_count: 'BIGINT',
  updated_at: 'BIGINT',
  geo_latitude: 'DOUBLE',
  geo_longitude: 'DOUBLE',
  actions: 'JSON',
  attributes: 'JSON',
  tags: 'JSON',
  classification: 'JSON',
  seen: 'JSON',
};
const COLUMNS: DuckColumns = SESSION_COLUMNS.map((n) => [n, COLUMN_TYPES[n] ?? 'VARCHAR'] as const);
const LIST = COLUMNS.map(([n]) => quote(n)).join(', ');
const KEY = new Set(['project_id', 'session_id']);
const SET = COLUMNS.filter(([n]) => !KEY.has(n))
  .map(([n]) => `${quote(n)} = excluded.${quote(n)}`)
  .join(', ');

/** The limit-th greatest last_event_at of the window ($2, $3), as a heap of integers ($4). */
const PAGE_HEAP = `AND last_event_at >= (SELECT list_min(max(last_event_at, $4)) FROM sessions
  WHERE project_id = $1 AND last_event_at >= $2 AND last_event_at < $3)`;

export class DuckDbSessionRepository implements SessionRepository {
  private readonly cuts = new PageCuts();

  constructor(
    private readonly writer: DuckDbConnection,
    private readonly reader: DuckReader,
  ) {}

  async upsert(sessions: SessionState[]): Promise<void> {
    // Same rule as ClickHouse's ReplacingMergeTree(updated_at): the greatest updated_at wins,
    // so a late, older state never overwrites a newer one.
    const rows = latestPerSession(sessions).map(sessionToRow);
    if (rows.length === 0) return;
    await this.writer.exclusive(async (x) => {
      await x.stage('stage_sessions', 'sessions', COLUMNS, rows);
      // Their hours' stats rollups hold the sessions' dimensions (rollups.ts): marked first, in the
      // same hold of the writer, so no refresh comes between, and a crash between leaves a mark
      // too many, not one too few (no transaction: at 100 events/s its BEGIN and COMMIT cost more).
      await x.run(markSessionHours('stage_sessions'));
      await x.run(
        `INSERT INTO sessions (${LIST}${DERIVED_LIST}) SELECT ${LIST}${DERIVED_VALUES} FROM stage_sessions
         ON CONFLICT (project_id, session_id) DO UPDATE SET ${SET}${DERIVED_SET}
         WHERE excluded.updated_at >= sessions.updated_at`,
      );
    });
  }

  async get(projectId: string, sessionId: string): Promise<SessionState | null> {
    const row = await this.byId(LIST, projectId, sessionId);
    return row ? rowToSession(row) : null;
  }

  async span(projectId: string, sessionId: string): Promise<SessionSpan | null> {
    const row = await this.byId('project_id, first_event_at, last_event_at', projectId, sessionId);
    return row ? rowToSessionSpan(row) : null;
  }

  /**
   * One session's `columns` (project_id among them), through the index on session_id (migration
   * step 11): DuckDB looks an index up only when the scan has no other filter, so the project is
   * checked above the scan (`OFFSET 0` keeps the optimizer from pushing it down). A session id
   * is rarely in more than one project.
   */
  private async byId(columns: string, projectId: string, sessionId: string) {
    const [row] = await this.reader.all(
      `SELECT * FROM (SELECT ${columns} FROM sessions WHERE session_id = $2 OFFSET 0) WHERE project_id = $1`,
      [projectId, sessionId],
    );
    return row;
  }

  async getMany(projectId: string, sessionIds: string[]): Promise<SessionState[]> {
    if (sessionIds.length === 0) return [];
    const rows = await this.reader.all(
      `SELECT ${LIST} FROM sessions WHERE project_id = $1 AND session_id IN (SELECT unnest($2))
       ORDER BY session_id`,
      [projectId, sessionIds],
    );
    return rows.map(rowToSession);
  }

  /**
   * The newest `limit` first. The limit-th greatest last_event_at is found first (`max(x, n)`, a
   * heap of integers), then only the sessions from it on are sorted by (last_event_at, id): the
   * top-N over both keys took 10 ms of the 14 on 50,000 sessions (issue 15). The heap is most of
   * what is left (3 of ~6 ms of the engine's time at 50,000 sessions, growing with them), so a
   * page read again starts where it ended last time (PageCuts).
   */
  async list(projectId: string, q: ListQuery): Promise<SessionListItem[]> {
    const start = q.window_start ?? MIN_MS;
    const end = q.window_end ?? MAX_MS;
    const limit = checkLimit(q.limit);
    const rows = await this.cuts.page(
      [projectId, start, end, limit],
      limit,
      // From a cut (never before `start`: it is a page item's time), no heap is needed.
      (from) =>
        this.reader.all(
          `SELECT session_id, first_event_at, last_event_at, event_count FROM sessions
           WHERE project_id = $1 AND last_event_at >= $2 AND last_event_at < $3 ${from === null ? PAGE_HEAP : ''}
           ORDER BY last_event_at DESC, session_id LIMIT $4`,
          [projectId, from ?? start, end, limit],
        ),
      (r) => toInt(r.last_event_at),
    );
    return rows.map(rowToSessionListItem);
  }

  async page(projectId: string, afterSessionId: string | null, limit: number): Promise<SessionState[]> {
    const rows =
      afterSessionId === null
        ? await this.reader.all(`SELECT ${LIST} FROM sessions WHERE project_id = $1 ORDER BY session_id LIMIT $2`, [
            projectId,
            checkLimit(limit),
          ])
        : await this.reader.all(
            `SELECT ${LIST} FROM sessions WHERE project_id = $1 AND session_id > $2 ORDER BY session_id LIMIT $3`,
            [projectId, afterSessionId, checkLimit(limit)],
          );
    return rows.map(rowToSession);
  }

  async count(projectId: string): Promise<number> {
    const [row] = await this.reader.all('SELECT count(*) AS n FROM sessions WHERE project_id = $1', [projectId]);
    return toInt(row?.n ?? 0);
  }
}
