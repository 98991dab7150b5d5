import type { RecordQuery, RecordRepository, StoredRecord } from '../store.js';
import { checkLimit, MAX_MS, MIN_MS } from '../column-values.js';
import { latestPerRecord, RECORD_COLUMNS, recordToRow, rowToRecord } from '../record-row.js';
import type { DuckColumnType, DuckColumns, DuckDbConnection, DuckReader } from './duckdb-connection.js';

const LIST = RECORD_COLUMNS.join(', ');
const TYPES: Record<string, DuckColumnType> = { sort_key: 'BIGINT', updated_at: 'BIGINT', deleted: 'BOOLEAN' };
const COLUMNS: DuckColumns = RECORD_COLUMNS.map((n) => [n, TYPES[n] ?? 'VARCHAR'] as const);
const PLACEHOLDERS = RECORD_COLUMNS.map((_, i) => `$${i + 1}`).join(', ');
const SET = RECORD_COLUMNS.filter((n) => !['kind', 'project_id', 'id'].includes(n))
  .map((n) => `${n} = excluded.${n}`)
  .join(', ');

/** PRIMARY KEY (kind, project_id, id); an upsert keeps the greatest updated_at (ties: the later write). */
export class DuckDbRecordRepository implements RecordRepository {
  constructor(
    private readonly writer: DuckDbConnection,
    private readonly reader: DuckReader,
  ) {}

  async put<T>(records: Array<StoredRecord<T>>): Promise<void> {
    const rows = latestPerRecord(records).map(recordToRow);
    if (rows.length === 0) return;
    const upsert = `ON CONFLICT (kind, project_id, id) DO UPDATE SET ${SET} WHERE excluded.updated_at >= records.updated_at`;
    if (rows.length === 1) {
      await this.writer.run(
        `INSERT INTO records (${LIST}) VALUES (${PLACEHOLDERS}) ${upsert}`,
        RECORD_COLUMNS.map((c) => rows[0]![c]!),
      );
      return;
    }
    // Batches (a burst of deliveries) through the Appender and one statement, as events do.
    await this.writer.exclusive(async (x) => {
      await x.stage('stage_records', 'records', COLUMNS, rows);
      await x.run(`INSERT INTO records (${LIST}) SELECT ${LIST} FROM stage_records ${upsert}`);
    });
  }

  async get<T>(kind: string, projectId: string, id: string): Promise<StoredRecord<T> | null> {
    const [row] = await this.reader.all(
      `SELECT ${LIST} FROM records WHERE kind = $1 AND project_id = $2 AND id = $3 AND NOT deleted`,
      [kind, projectId, id],
    );
    return row ? rowToRecord<T>(row) : null;
  }

  async list<T>(kind: string, projectId: string, q: RecordQuery): Promise<Array<StoredRecord<T>>> {
    const rows = await this.reader.all(
      `SELECT ${LIST} FROM records
       WHERE kind = $1 AND project_id = $2 AND NOT deleted AND ($3 = '' OR parent_id = $3) AND sort_key >= $4 AND sort_key < $5
       ORDER BY sort_key DESC, id LIMIT $6`,
      [kind, projectId, q.parent_id ?? '', q.from ?? MIN_MS, q.to ?? MAX_MS, checkLimit(q.limit)],
    );
    return rows.map((r) => rowToRecord<T>(r));
  }

  async listAll<T>(kind: string, limit: number): Promise<Array<StoredRecord<T>>> {
    const rows = await this.reader.all(
      `SELECT ${LIST} FROM records WHERE kind = $1 AND NOT deleted ORDER BY project_id, id LIMIT $2`,
      [kind, checkLimit(limit)],
    );
    return rows.map((r) => rowToRecord<T>(r));
  }

  async purge(kind: string, before: number): Promise<void> {
    await this.writer.run('DELETE FROM records WHERE kind = $1 AND sort_key < $2', [kind, before]);
  }
}
