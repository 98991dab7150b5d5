import type { ProjectRecord, ProjectSettings } from '@spoor/schemas';
import { StoreConflictError, type ProjectRepository } from '../store.js';
import { toBool, toInt, toStr } from '../column-values.js';
import { mergeSettings, settingsOf } from '../project-settings-row.js';
import { isConstraintViolation, type DuckDbConnection, type Row, type DuckReader } from './duckdb-connection.js';

const COLUMNS =
  'project_id, origin, project, account_id, verified, verification_token, created_at, retention_days, ip_policy';

export class DuckDbProjectRepository implements ProjectRepository {
  constructor(
    private readonly writer: DuckDbConnection,
    private readonly reader: DuckReader,
  ) {}

  /** The project and its owner's membership (issue 45) in one transaction. */
  async create(p: ProjectRecord): Promise<void> {
    const values = [
      p.project_id,
      p.origin,
      p.project,
      p.account_id,
      p.verified,
      p.verification_token,
      p.created_at,
      p.retention_days ?? null,
      p.ip_policy ?? null,
    ];
    try {
      await this.writer.exclusive((x) =>
        x.transaction(async () => {
          await x.run(`INSERT INTO projects (${COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`, values);
          await x.run(
            `INSERT INTO project_members (project_id, account_id, role, created_at, updated_at)
             VALUES ($1, $2, 'owner', $3, $3)`,
            [p.project_id, p.account_id, p.created_at],
          );
        }),
      );
    } catch (err) {
      if (isConstraintViolation(err)) {
        throw new StoreConflictError(`project ${p.project} at ${p.origin} (or id ${p.project_id}) exists`);
      }
      throw err;
    }
  }

  async find(origin: string, project: string): Promise<ProjectRecord | null> {
    return first(
      await this.reader.all(`SELECT ${COLUMNS} FROM projects WHERE origin = $1 AND project = $2`, [origin, project]),
    );
  }

  async findByName(project: string): Promise<ProjectRecord[]> {
    const rows = await this.reader.all(`SELECT ${COLUMNS} FROM projects WHERE project = $1 ORDER BY origin`, [project]);
    return rows.map(rowToProject);
  }

  async get(projectId: string): Promise<ProjectRecord | null> {
    return first(await this.reader.all(`SELECT ${COLUMNS} FROM projects WHERE project_id = $1`, [projectId]));
  }

  async listByAccount(accountId: string): Promise<ProjectRecord[]> {
    const rows = await this.reader.all(
      `SELECT ${COLUMNS} FROM projects WHERE account_id = $1 ORDER BY created_at, origin, project`,
      [accountId],
    );
    return rows.map(rowToProject);
  }

  async setVerified(projectId: string, verified: boolean): Promise<void> {
    await this.writer.run('UPDATE projects SET verified = $2 WHERE project_id = $1', [projectId, verified]);
  }

  async updateSettings(projectId: string, settings: ProjectSettings): Promise<ProjectRecord | null> {
    // Read and write on the writer alone, so two changes of different fields cannot undo each other.
    const rows = await this.writer.exclusive(async (x) => {
      const [row] = await x.all(`SELECT ${COLUMNS} FROM projects WHERE project_id = $1`, [projectId]);
      if (!row) return [];
      const next = mergeSettings(row, settings);
      await x.run('UPDATE projects SET retention_days = $2, ip_policy = $3 WHERE project_id = $1', [
        projectId,
        next.retention_days,
        next.ip_policy,
      ]);
      return x.all(`SELECT ${COLUMNS} FROM projects WHERE project_id = $1`, [projectId]);
    });
    return first(rows);
  }

  async listWithRetention(): Promise<ProjectRecord[]> {
    return (
      await this.reader.all(`SELECT ${COLUMNS} FROM projects WHERE retention_days IS NOT NULL ORDER BY project_id`)
    ).map(rowToProject);
  }
}

function first(rows: Row[]): ProjectRecord | null {
  const [row] = rows;
  return row ? rowToProject(row) : null;
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
