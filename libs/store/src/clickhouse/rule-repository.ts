import { randomUUID } from 'node:crypto';
import type { RuleRecord } from '@spoor/schemas';
import { StoreConflictError, type RuleRepository } from '../store.js';
import { RULE_COLUMNS, ruleToRow, rowToRule } from '../rule-row.js';
import type { ClickHouseConnection, Params, Row } from './clickhouse-connection.js';

const COLUMNS = RULE_COLUMNS.join(', ');
const RULE = 'project_id = {project_id:String} AND rule_id = {rule_id:String}';

/** Keys and read paths: migrations.ts, step 3. */
export class ClickHouseRuleRepository implements RuleRepository {
  constructor(private readonly ch: ClickHouseConnection) {}

  /**
   * No unique constraint, so as for projects: check, insert, read back the survivor (the
   * earliest insert of a (project, rule_id, version)). Each put stamps its row with a fresh
   * write_id, so it recognises its own row even when a racer wrote the same content. What
   * remains of the race is the projects' one: same-microsecond inserts and server clock steps.
   */
  async put(rule: RuleRecord): Promise<void> {
    const conflict = () => new StoreConflictError(`rule ${rule.rule_id} version ${rule.version} exists`);
    const key = { project_id: rule.project_id, rule_id: rule.rule_id, version: rule.version };
    const survivor = () => this.select(`${RULE} AND version = {version:UInt32}`, key);
    if ((await survivor()).length > 0) throw conflict();
    const write_id = randomUUID();
    await this.ch.insert('rules', [{ ...ruleToRow(rule), write_id }]);
    const [row] = await survivor();
    if (row?.write_id !== write_id) throw conflict();
  }

  async get(projectId: string, ruleId: string): Promise<RuleRecord | null> {
    const [row] = await this.select(`${RULE} ORDER BY version DESC LIMIT 1`, {
      project_id: projectId,
      rule_id: ruleId,
    });
    return row ? rowToRule(row) : null;
  }

  async list(projectId: string): Promise<RuleRecord[]> {
    const rows = await this.select(
      'project_id = {project_id:String} ORDER BY rule_id, version DESC LIMIT 1 BY rule_id',
      { project_id: projectId },
    );
    return rows.map(rowToRule);
  }

  async versions(projectId: string, ruleId: string): Promise<RuleRecord[]> {
    const rows = await this.select(`${RULE} ORDER BY version`, { project_id: projectId, rule_id: ruleId });
    return rows.map(rowToRule);
  }

  /** WHERE runs after FINAL, so a version that lost its race never shows. */
  private select(whereAndOrder: string, params: Params): Promise<Row[]> {
    return this.ch.rows(
      `SELECT ${COLUMNS}, write_id FROM ${this.ch.table('rules')} FINAL WHERE ${whereAndOrder}`,
      params,
    );
  }
}
