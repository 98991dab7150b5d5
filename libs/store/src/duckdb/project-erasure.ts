// Project deletion in the embedded mode: one transaction of DELETEs, so a reader sees the
// project either whole or gone; then the export files of the project's export jobs.
import { ROLLUP_TABLES, refreshHeld } from './rollups.js';
import type { ProjectErasure, VisitorErasure, VisitorSelector } from '../data-ownership.js';
import type { DuckDbConnection } from './duckdb-connection.js';
import type { DuckDbExportRepository } from './export-repository.js';
import { eraseVisitorDuckDb } from './visitor-erasure.js';
import type { Wide } from './duckdb-threads.js';

/**
 * Every table with a project_id column (migrations.ts), the projects row last; `events` holds raw
 * and enriched, `event_keys` the latest events' keys (a repeat after the deletion is stored again).
 */
const PROJECT_TABLES = [
  'event_keys',
  'events',
  'sessions',
  'actions',
  'session_tag_facts',
  'rules',
  'session_classifications',
  'records',
  'project_members',
  'project_invitations',
  'audit_entries',
  ...ROLLUP_TABLES,
] as const;

/**
 * Records of no project ('') about one: its parent_id, or for those written before the parent
 * was set, the project named in their data (a share link's token index; data.md, Deletion).
 */
const NAMING_PROJECT = `project_id = '' AND (parent_id = $1 OR json_extract_string(data, '$.project_id') = $1)`;

export class DuckDbProjectErasure implements ProjectErasure {
  constructor(
    private readonly writer: DuckDbConnection,
    private readonly exports: DuckDbExportRepository,
    private readonly wide: Wide,
  ) {}

  async deleteProject(projectId: string, keepJobId: string): Promise<void> {
    const exportIds = await this.wide(() =>
      this.writer.exclusive(async (x) => {
        const jobs = await x.all(`SELECT job_id FROM jobs WHERE project_id = $1 AND kind = 'export'`, [projectId]);
        await x.transaction(async () => {
          for (const table of PROJECT_TABLES) await x.run(`DELETE FROM ${table} WHERE project_id = $1`, [projectId]);
          await x.run(`DELETE FROM records WHERE ${NAMING_PROJECT}`, [projectId]);
          await x.run('DELETE FROM jobs WHERE project_id = $1 AND job_id <> $2', [projectId, keepJobId]);
          await x.run('DELETE FROM projects WHERE project_id = $1', [projectId]);
        });
        return jobs.map((j) => String(j.job_id));
      }),
    );
    for (const id of exportIds) await this.exports.remove(id).catch(() => undefined);
  }

  async deleteAccount(accountId: string, keepJobId: string): Promise<void> {
    await this.writer.exclusive((x) =>
      x.transaction(async () => {
        await x.run('DELETE FROM api_keys WHERE account_id = $1', [accountId]);
        await x.run('DELETE FROM project_members WHERE account_id = $1', [accountId]);
        await x.run('DELETE FROM jobs WHERE account_id = $1 AND job_id <> $2', [accountId, keepJobId]);
        await x.run('DELETE FROM accounts WHERE account_id = $1', [accountId]);
      }),
    );
  }

  eraseVisitor(projectId: string, selector: VisitorSelector): Promise<VisitorErasure> {
    // The erased hours' rollups are rebuilt at once: no visitor hash of the person is left behind.
    return this.wide(() =>
      this.writer.exclusive(async (x) => {
        const erased = await eraseVisitorDuckDb(x, projectId, selector);
        await refreshHeld(x, projectId);
        return erased;
      }),
    );
  }
}
