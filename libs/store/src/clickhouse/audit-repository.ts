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
import type { ClickHouseConnection } from './clickhouse-connection.js';

const LIST = AUDIT_COLUMNS.join(', ');

/**
 * audit_entries ReplacingMergeTree ORDER BY (project_id, made_at, entry_id) (migrations.ts, step 13):
 * an append retried after a lost answer collapses into one row, which FINAL shows at once. Entries
 * leave by lightweight DELETE, as a project's other rows do (data-expiry.ts, project-erasure.ts).
 */
export class ClickHouseAuditRepository implements AuditRepository {
  constructor(private readonly ch: ClickHouseConnection) {}

  async append(entries: AuditRecord[]): Promise<void> {
    if (entries.length === 0) return;
    await this.ch.insert('audit_entries', entries.map(auditToRow));
  }

  async list(projectId: string, q: AuditListQuery): Promise<AuditRecord[]> {
    const { exact, prefix } = actionFilter(q.action ?? '');
    const rows = await this.ch.rows(
      `SELECT ${LIST} FROM ${this.ch.table('audit_entries')} FINAL
       WHERE project_id = {p:String}
         AND ({exact:String} = '' OR action = {exact:String})
         AND ({prefix:String} = '' OR startsWith(action, {prefix:String}))
         AND ({actor:String} = '' OR actor_id = {actor:String} OR lower(ifNull(actor_email, '')) = lower({actor:String}))
         AND made_at >= {from:Int64} AND made_at < {to:Int64}
         AND ({after_id:String} = '' OR made_at < {after_at:Int64} OR (made_at = {after_at:Int64} AND entry_id < {after_id:String}))
       ORDER BY made_at DESC, entry_id DESC LIMIT {limit:UInt32}`,
      {
        p: projectId,
        exact,
        prefix,
        actor: q.actor ?? '',
        from: q.window_start ?? MIN_MS,
        to: q.window_end ?? MAX_MS,
        after_id: q.after?.entry_id ?? '',
        after_at: q.after?.made_at ?? MAX_MS,
        limit: checkLimit(q.limit),
      },
    );
    return rows.map(rowToAudit);
  }

  async expire(projectId: string, before: number): Promise<void> {
    await this.ch.command(
      `DELETE FROM ${this.ch.table('audit_entries')} WHERE project_id = {p:String} AND made_at < {before:Int64}`,
      { p: projectId, before },
    );
  }
}
