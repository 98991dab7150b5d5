import type { ProjectRecord } from '@spoor/schemas';
import { StoreConflictError, type ProjectRepository } from '../store.js';
import { toBool, toInt, toStr } from '../column-values.js';
import { isConstraintViolation, type DuckDbConnection, type Row, type DuckReader } from './duckdb-connection.js';

const COLUMNS = 'project_id, origin, project, account_id, verified, verification_token, created_at';

export class DuckDbProjectRepository implements ProjectRepository {
  constructor(private readonly writer: DuckDbConnection, private readonly reader: DuckReader) {}

  async create(p: ProjectRecord): Promise<void> {
    try {
      await this.writer.run(
        `INSERT INTO projects (${COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7)`,
        [p.project_id, p.origin, p.project, p.account_id, p.verified, p.verification_token, p.created_at],
      );
    } catch (err) {
      if (isConstraintViolation(err)) {
        throw new StoreConflictError(`project ${p.project} at ${p.origin} (or id ${p.project_id}) exists`);
      }
      throw err;
    }
  }

  async find(origin: string, project: string): Promise<ProjectRecord | null> {
    return first(await this.reader.all(`SELECT ${COLUMNS} FROM projects WHERE origin = $1 AND project = $2`, [origin, project]));
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
}

function first(rows: Row[]): ProjectRecord | null {
  const [row] = rows;
  return row ? rowToProject(row) : null;
}

function rowToProject(r: Row): ProjectRecord {
  return {
    project_id: toStr(r.project_id), origin: toStr(r.origin), project: toStr(r.project),
    account_id: toStr(r.account_id), verified: toBool(r.verified),
    verification_token: toStr(r.verification_token), created_at: toInt(r.created_at),
  };
}
