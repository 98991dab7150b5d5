import {
  AUDIT_COLUMNS,
  actionFilter,
  auditToRow,
  rowToAudit,
  type AuditListQuery,
  type AuditRecord,
  type AuditRepository,
} from '../audit.js';
import { checkLimit, MAX_MS, MIN_MS } from '../column-values.js';
import type { DuckDbConnection, DuckReader, Param } from './duckdb-connection.js';

const LIST = AUDIT_COLUMNS.join(', ');
const PLACEHOLDERS = AUDIT_COLUMNS.map((_, i) => `$${i + 1}`).join(', ');

/**
 * audit_entries PRIMARY KEY (project_id, entry_id) (migrations.ts, step 13): a repeated append of
 * one entry is stored once. A project's list reads by project_id; the table holds a few rows per
 * change of configuration, never events.
 */
export class DuckDbAuditRepository implements AuditRepository {
  constructor(
    private readonly writer: DuckDbConnection,
    private readonly reader: DuckReader,
  ) {}

  async append(entries: AuditRecord[]): Promise<void> {
    for (const entry of entries) {
      const row = auditToRow(entry);
      await this.writer.run(
        `INSERT INTO audit_entries (${LIST}) VALUES (${PLACEHOLDERS}) ON CONFLICT DO NOTHING`,
        AUDIT_COLUMNS.map((c) => row[c] as Param),
      );
    }
  }

  async list(projectId: string, q: AuditListQuery): Promise<AuditRecord[]> {
    const { exact, prefix } = actionFilter(q.action ?? '');
    const after = q.after ?? { made_at: MAX_MS, entry_id: '' };
    const rows = await this.reader.all(
      `SELECT ${LIST} FROM audit_entries
       WHERE project_id = $1
         AND ($2 = '' OR action = $2) AND ($3 = '' OR starts_with(action, $3))
         AND ($4 = '' OR actor_id = $4 OR lower(coalesce(actor_email, '')) = lower($4))
         AND made_at >= $5 AND made_at < $6
         AND ($7 = '' OR made_at < $8 OR (made_at = $8 AND entry_id < $7))
       ORDER BY made_at DESC, entry_id DESC LIMIT $9`,
      [
        projectId,
        exact,
        prefix,
        q.actor ?? '',
        q.window_start ?? MIN_MS,
        q.window_end ?? MAX_MS,
        q.after ? after.entry_id : '',
        after.made_at,
        checkLimit(q.limit),
      ],
    );
    return rows.map(rowToAudit);
  }

  async expire(projectId: string, before: number): Promise<void> {
    await this.writer.run('DELETE FROM audit_entries WHERE project_id = $1 AND made_at < $2', [projectId, before]);
  }
}
