import type { ProjectRecord, ProjectSettings } from '@spoor/schemas';
import { StoreConflictError, type ProjectRepository } from '../store.js';
import { toBool, toInt, toStr } from '../column-values.js';
import { mergeSettings, settingsOf } from '../project-settings-row.js';
import type { ClickHouseConnection, Params, Row } from './clickhouse-connection.js';

const COLUMNS =
  'project_id, origin, project, account_id, verified, verification_token, created_at, retention_days, ip_policy';

export class ClickHouseProjectRepository implements ProjectRepository {
  constructor(private readonly ch: ClickHouseConnection) {}

  /**
   * ClickHouse has no unique constraint, so: check, insert, then read back. The insert takes a
   * server-stamped version that decreases with time, and FINAL keeps the highest, i.e. the
   * earliest insert of an (origin, project). Two racing creates therefore both read back the
   * same survivor and the later one throws StoreConflictError. What remains of the race: two
   * inserts in the same microsecond (the later insert survives and the earlier caller, if it
   * read back first, believes it won), and clock steps backwards on the server. A crash between
   * the project and its owner's membership leaves a project nobody sees; registering it again
   * answers 409 (docs/security.md, Roles).
   */
  async create(p: ProjectRecord): Promise<void> {
    const conflict = () => new StoreConflictError(`project ${p.project} at ${p.origin} exists`);
    if (await this.find(p.origin, p.project)) throw conflict();
    await this.ch.insert('projects', [
      {
        project_id: p.project_id,
        origin: p.origin,
        project: p.project,
        account_id: p.account_id,
        verified: p.verified,
        verification_token: p.verification_token,
        created_at: p.created_at,
        retention_days: p.retention_days ?? null,
        ip_policy: p.ip_policy ?? null,
      },
    ]);
    const survivor = await this.find(p.origin, p.project);
    if (survivor?.project_id !== p.project_id) throw conflict();
    // Its owner (issue 45), once the project is known to be this one.
    await this.ch.insert('project_members', [
      {
        project_id: p.project_id,
        account_id: p.account_id,
        role: 'owner',
        created_at: p.created_at,
        updated_at: p.created_at,
        removed: false,
      },
    ]);
  }

  async find(origin: string, project: string): Promise<ProjectRecord | null> {
    const [row] = await this.select('origin = {origin:String} AND project = {project:String}', { origin, project });
    return row ? rowToProject(row) : null;
  }

  async findByName(project: string): Promise<ProjectRecord[]> {
    return (await this.select('project = {project:String}', { project }, 'origin')).map(rowToProject);
  }

  async get(projectId: string): Promise<ProjectRecord | null> {
    const [row] = await this.select('project_id = {project_id:String}', { project_id: projectId });
    return row ? rowToProject(row) : null;
  }

  async listByAccount(accountId: string): Promise<ProjectRecord[]> {
    const rows = await this.select(
      'account_id = {account_id:String}',
      { account_id: accountId },
      'created_at, origin, project',
    );
    return rows.map(rowToProject);
  }

  /** Writes the surviving row again with version + 1, which outranks it under FINAL. */
  async setVerified(projectId: string, verified: boolean): Promise<void> {
    const [row] = await this.select('project_id = {project_id:String}', { project_id: projectId });
    if (!row) return;
    const { version, ...rest } = row;
    await this.ch.insert('projects', [{ ...rest, verified, version: toInt(version) + 1 }]);
  }

  /**
   * Like setVerified: the surviving row again with version + 1. Two changes racing within one
   * read-and-insert can lose one of them (the later insert carries the other's old value); the
   * setting is changed by people, one form at a time.
   */
  async updateSettings(projectId: string, settings: ProjectSettings): Promise<ProjectRecord | null> {
    const [row] = await this.select('project_id = {project_id:String}', { project_id: projectId });
    if (!row) return null;
    const { version, ...rest } = row;
    const next = { ...rest, ...mergeSettings(row, settings), version: toInt(version) + 1 };
    await this.ch.insert('projects', [next]);
    return rowToProject(next);
  }

  async listWithRetention(): Promise<ProjectRecord[]> {
    return (await this.select('retention_days IS NOT NULL', {}, 'project_id')).map(rowToProject);
  }

  /** WHERE runs after FINAL (no PREWHERE with FINAL), so only surviving rows ever match. */
  private select(where: string, params: Params, orderBy = 'origin, project'): Promise<Row[]> {
    return this.ch.rows(
      `SELECT ${COLUMNS}, version FROM ${this.ch.table('projects')} FINAL WHERE ${where} ORDER BY ${orderBy}`,
      params,
    );
  }
}

function rowToProject(r: Row): ProjectRecord {
  return {
    project_id: toStr(r.project_id),
    origin: toStr(r.origin),
    project: toStr(r.project),
    account_id: toStr(r.account_id),
    verified: toBool(r.verified),
    verification_token: toStr(r.verification_token),
    created_at: toInt(r.created_at),
    ...settingsOf(r),
  };
}
