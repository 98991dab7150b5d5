import type { SessionClassification } from '@spoor/schemas';
import type { ClassificationRepository } from '../store.js';
import {
  CLASSIFICATION_COLUMNS,
  classificationToRow,
  latestPerClassification,
  rowToClassification,
} from '../rule-row.js';
import type { ClickHouseConnection } from './clickhouse-connection.js';

const LIST = CLASSIFICATION_COLUMNS.join(', ');

/** ReplacingMergeTree(classified_at) ORDER BY (project_id, session_id); reads use FINAL (migrations.ts, step 3). */
export class ClickHouseClassificationRepository implements ClassificationRepository {
  constructor(private readonly ch: ClickHouseConnection) {}

  async put(items: SessionClassification[]): Promise<void> {
    // Rows of one insert tie on classified_at in arbitrary ways, so pick the winner here.
    await this.ch.insert('session_classifications', latestPerClassification(items).map(classificationToRow));
  }

  async get(projectId: string, sessionId: string): Promise<SessionClassification | null> {
    const [row] = await this.ch.rows(
      `SELECT ${LIST} FROM ${this.ch.table('session_classifications')} FINAL
       WHERE project_id = {project_id:String} AND session_id = {session_id:String}`,
      { project_id: projectId, session_id: sessionId },
    );
    return row ? rowToClassification(row) : null;
  }

  async getMany(projectId: string, sessionIds: string[]): Promise<SessionClassification[]> {
    if (sessionIds.length === 0) return [];
    const rows = await this.ch.rows(
      `SELECT ${LIST} FROM ${this.ch.table('session_classifications')} FINAL
       WHERE project_id = {project_id:String} AND session_id IN {session_ids:Array(String)}
       ORDER BY session_id`,
      { project_id: projectId, session_ids: sessionIds },
    );
    return rows.map(rowToClassification);
  }
}
