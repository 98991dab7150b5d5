import type { SessionClassification } from '@spoor/schemas';
import type { ClassificationRepository } from '../store.js';
import {
  CLASSIFICATION_COLUMNS,
  classificationToRow,
  latestPerClassification,
  rowToClassification,
} from '../rule-row.js';
import type { DuckColumnType, DuckColumns, DuckDbConnection, DuckReader } from './duckdb-connection.js';

const TYPES: Record<string, DuckColumnType> = {
  rule_ids: 'JSON',
  labels: 'JSON',
  classified_at: 'BIGINT',
  session_last_event_at: 'BIGINT',
};
const COLUMNS: DuckColumns = CLASSIFICATION_COLUMNS.map((n) => [n, TYPES[n] ?? 'VARCHAR'] as const);
const LIST = CLASSIFICATION_COLUMNS.join(', ');
const SET = CLASSIFICATION_COLUMNS.filter((n) => n !== 'project_id' && n !== 'session_id')
  .map((n) => `${n} = excluded.${n}`)
  .join(', ');

/** PRIMARY KEY (project_id, session_id); an upsert keeps the greatest classified_at (ties: the later write). */
export class DuckDbClassificationRepository implements ClassificationRepository {
  constructor(
    private readonly writer: DuckDbConnection,
    private readonly reader: DuckReader,
  ) {}

  async put(items: SessionClassification[]): Promise<void> {
    // One row per key first, for the DuckDB 1.5 ON CONFLICT quirk noted in touchActions.
    const rows = latestPerClassification(items).map(classificationToRow);
    if (rows.length === 0) return;
    await this.writer.exclusive(async (x) => {
      await x.stage('stage_session_classifications', 'session_classifications', COLUMNS, rows);
      await x.run(
        `INSERT INTO session_classifications (${LIST}) SELECT ${LIST} FROM stage_session_classifications
         ON CONFLICT (project_id, session_id) DO UPDATE SET ${SET}
         WHERE excluded.classified_at >= session_classifications.classified_at`,
      );
    });
  }

  async get(projectId: string, sessionId: string): Promise<SessionClassification | null> {
    const [row] = await this.reader.all(
      `SELECT ${LIST} FROM session_classifications WHERE project_id = $1 AND session_id = $2`,
      [projectId, sessionId],
    );
    return row ? rowToClassification(row) : null;
  }

  async getMany(projectId: string, sessionIds: string[]): Promise<SessionClassification[]> {
    if (sessionIds.length === 0) return [];
    const rows = await this.reader.all(
      `SELECT ${LIST} FROM session_classifications
       WHERE project_id = $1 AND session_id IN (SELECT unnest($2)) ORDER BY session_id`,
      [projectId, sessionIds],
    );
    return rows.map(rowToClassification);
  }
}
