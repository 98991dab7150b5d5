import type { RuleRecord } from '@spoor/schemas';
import { StoreConflictError, type RuleRepository } from '../store.js';
import { RULE_COLUMNS, ruleToRow, rowToRule } from '../rule-row.js';
import { isConstraintViolation, type DuckDbConnection, type DuckReader } from './duckdb-connection.js';

const COLUMNS = RULE_COLUMNS.join(', ');
const PLACEHOLDERS = RULE_COLUMNS.map((_, i) => `$${i + 1}`).join(', ');

/**
 * One row per version, PRIMARY KEY (project_id, rule_id, version) (migrations.ts, step 3):
 * writes are serialised on the writer connection, so of two puts of one version the second
 * meets the first's row and fails on the key.
 */
export class DuckDbRuleRepository implements RuleRepository {
  constructor(
    private readonly writer: DuckDbConnection,
    private readonly reader: DuckReader,
  ) {}

  async put(rule: RuleRecord): Promise<void> {
    const row = ruleToRow(rule);
    try {
      await this.writer.run(
        `INSERT INTO rules (${COLUMNS}) VALUES (${PLACEHOLDERS})`,
        RULE_COLUMNS.map((c) => (c === 'tags' ? JSON.stringify(row.tags) : row[c]) as string | number | boolean | null),
      );
    } catch (err) {
      if (isConstraintViolation(err)) {
        throw new StoreConflictError(`rule ${rule.rule_id} version ${rule.version} exists`);
      }
      throw err;
    }
  }

  async get(projectId: string, ruleId: string): Promise<RuleRecord | null> {
    const [row] = await this.reader.all(
      `SELECT ${COLUMNS} FROM rules WHERE project_id = $1 AND rule_id = $2 ORDER BY version DESC LIMIT 1`,
      [projectId, ruleId],
    );
    return row ? rowToRule(row) : null;
  }

  async list(projectId: string): Promise<RuleRecord[]> {
    const rows = await this.reader.all(
      `SELECT ${COLUMNS} FROM rules WHERE project_id = $1
       QUALIFY row_number() OVER (PARTITION BY rule_id ORDER BY version DESC) = 1
       ORDER BY rule_id`,
      [projectId],
    );
    return rows.map(rowToRule);
  }

  async versions(projectId: string, ruleId: string): Promise<RuleRecord[]> {
    const rows = await this.reader.all(
      `SELECT ${COLUMNS} FROM rules WHERE project_id = $1 AND rule_id = $2 ORDER BY version`,
      [projectId, ruleId],
    );
    return rows.map(rowToRule);
  }
}
