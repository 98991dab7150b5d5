// Project deletion in ClickHouse mode: a lightweight DELETE per table (docs/data.md), a mutation
// for sessions (deleteSessions). Rows leave every read at once (the delete mask applies to FINAL
// too); the bytes stay in their parts until the next merge rewrites them. Partition drops do not
// fit: no table is partitioned by project (a ReplacingMergeTree only collapses duplicates within a
// partition).
import type { ProjectErasure, VisitorErasure, VisitorSelector } from '../data-ownership.js';
import type { ClickHouseConnection } from './clickhouse-connection.js';
import { deleteSessions } from './session-repository.js';
import { eraseVisitorClickHouse } from './visitor-erasure.js';
import { ROLLUP_TABLES, purgeSupersededNow, refreshRollups } from './rollups.js';

/** Every table with a project_id column (migrations.ts) but sessions (deleteSessions), the projects row last. */
const PROJECT_TABLES = [
  'raw_events',
  'enriched_events',
  'enriched_events_by_session',
  'actions',
  'session_tag_facts',
  'rules',
  'session_classifications',
  'records',
  'export_chunks',
  'project_members',
  'project_invitations',
  'audit_entries',
  ...ROLLUP_TABLES,
] as const;

export class ClickHouseProjectErasure implements ProjectErasure {
  constructor(private readonly ch: ClickHouseConnection) {}

  async deleteProject(projectId: string, keepJobId: string): Promise<void> {
    for (const table of PROJECT_TABLES) {
      await this.ch.command(`DELETE FROM ${this.ch.table(table)} WHERE project_id = {p:String}`, { p: projectId });
    }
    // Records of no project about this one (duckdb/project-erasure.ts, NAMING_PROJECT).
    await this.ch.command(
      `DELETE FROM ${this.ch.table('records')} WHERE project_id = '' AND (parent_id = {p:String} OR JSONExtractString(data, 'project_id') = {p:String})`,
      { p: projectId },
    );
    await deleteSessions(this.ch, 'project_id = {p:String}', { p: projectId });
    await this.ch.command(
      `DELETE FROM ${this.ch.table('jobs')} WHERE project_id = {p:String} AND job_id != {keep:String}`,
      { p: projectId, keep: keepJobId },
    );
    await this.ch.command(`DELETE FROM ${this.ch.table('projects')} WHERE project_id = {p:String}`, { p: projectId });
  }

  /** The email claim and the key-hash index go too, so the email can sign up again and no key resolves. */
  async deleteAccount(accountId: string, keepJobId: string): Promise<void> {
    for (const table of ['api_keys', 'api_keys_by_hash', 'account_emails', 'project_members']) {
      await this.ch.command(`DELETE FROM ${this.ch.table(table)} WHERE account_id = {a:String}`, { a: accountId });
    }
    await this.ch.command(
      `DELETE FROM ${this.ch.table('jobs')} WHERE account_id = {a:String} AND job_id != {keep:String}`,
      { a: accountId, keep: keepJobId },
    );
    await this.ch.command(`DELETE FROM ${this.ch.table('accounts')} WHERE account_id = {a:String}`, { a: accountId });
  }

  async eraseVisitor(projectId: string, selector: VisitorSelector): Promise<VisitorErasure> {
    // The erased hours' rollups are rebuilt at once, and the generations they supersede deleted:
    // no session id or visitor hash of the person is left behind, on a quiet project too.
    const erased = await eraseVisitorClickHouse(this.ch, projectId, selector);
    await refreshRollups(this.ch, projectId);
    await purgeSupersededNow(this.ch, projectId);
    return erased;
  }
}
