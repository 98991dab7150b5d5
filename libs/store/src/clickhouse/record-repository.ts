import type { RecordQuery, RecordRepository, StoredRecord } from '../store.js';
import { checkLimit, MAX_MS, MIN_MS } from '../column-values.js';
import { latestPerRecord, RECORD_COLUMNS, recordToRow, rowToRecord } from '../record-row.js';
import type { ClickHouseConnection } from './clickhouse-connection.js';

const LIST = RECORD_COLUMNS.join(', ');

/**
 * ReplacingMergeTree(updated_at) ORDER BY (kind, project_id, id) (migrations.ts, step 4); reads
 * use FINAL and drop tombstones after it, so a deletion hides every older version.
 */
export class ClickHouseRecordRepository implements RecordRepository {
  constructor(private readonly ch: ClickHouseConnection) {}

  async put<T>(records: Array<StoredRecord<T>>): Promise<void> {
    const rows = latestPerRecord(records).map(recordToRow);
    if (rows.length) await this.ch.insert('records', rows);
  }

  async get<T>(kind: string, projectId: string, id: string): Promise<StoredRecord<T> | null> {
    const [row] = await this.ch.rows(
      `SELECT ${LIST} FROM ${this.ch.table('records')} FINAL
       WHERE kind = {kind:String} AND project_id = {project_id:String} AND id = {id:String} AND NOT deleted`,
      { kind, project_id: projectId, id },
    );
    return row ? rowToRecord<T>(row) : null;
  }

  async list<T>(kind: string, projectId: string, q: RecordQuery): Promise<Array<StoredRecord<T>>> {
    const rows = await this.ch.rows(
      `SELECT ${LIST} FROM ${this.ch.table('records')} FINAL
       WHERE kind = {kind:String} AND project_id = {project_id:String} AND NOT deleted
         AND ({parent_id:String} = '' OR parent_id = {parent_id:String})
         AND sort_key >= {from:Int64} AND sort_key < {to:Int64}
       ORDER BY sort_key DESC, id LIMIT {limit:UInt64}`,
      {
        kind,
        project_id: projectId,
        parent_id: q.parent_id ?? '',
        from: q.from ?? MIN_MS,
        to: q.to ?? MAX_MS,
        limit: checkLimit(q.limit),
      },
    );
    return rows.map((r) => rowToRecord<T>(r));
  }

  async listAll<T>(kind: string, limit: number): Promise<Array<StoredRecord<T>>> {
    const rows = await this.ch.rows(
      `SELECT ${LIST} FROM ${this.ch.table('records')} FINAL WHERE kind = {kind:String} AND NOT deleted
       ORDER BY project_id, id LIMIT {limit:UInt64}`,
      { kind, limit: checkLimit(limit) },
    );
    return rows.map((r) => rowToRecord<T>(r));
  }

  /** A mutation, waited for: retention runs once a minute at most, on a small kind. */
  async purge(kind: string, before: number): Promise<void> {
    await this.ch.command(
      `ALTER TABLE ${this.ch.table('records')} DELETE WHERE kind = {kind:String} AND sort_key < {before:Int64}
       SETTINGS mutations_sync = 1`,
      { kind, before },
    );
  }
}
