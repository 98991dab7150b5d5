import type { JobRecord } from '@spoor/schemas';
import type { JobRepository } from '../store.js';
import { checkLimit } from '../column-values.js';
import { JOB_COLUMNS, jobToRow, rowToJob } from '../job-row.js';
import type { DuckDbConnection, DuckReader } from './duckdb-connection.js';

const COLUMNS = JOB_COLUMNS.join(', ');
const PLACEHOLDERS = JOB_COLUMNS.map((_, i) => `$${i + 1}`).join(', ');
const SET = JOB_COLUMNS.filter((n) => n !== 'job_id')
  .map((n) => `${n} = excluded.${n}`)
  .join(', ');

/** PRIMARY KEY job_id; an upsert keeps the greatest updated_at (ties: the later write). */
export class DuckDbJobRepository implements JobRepository {
  constructor(
    private readonly writer: DuckDbConnection,
    private readonly reader: DuckReader,
  ) {}

  async put(job: JobRecord): Promise<void> {
    const row = jobToRow(job);
    await this.writer.run(
      `INSERT INTO jobs (${COLUMNS}) VALUES (${PLACEHOLDERS})
       ON CONFLICT (job_id) DO UPDATE SET ${SET} WHERE excluded.updated_at >= jobs.updated_at`,
      JOB_COLUMNS.map((c) => row[c] as string | number | null),
    );
  }

  async get(jobId: string): Promise<JobRecord | null> {
    const [row] = await this.reader.all(`SELECT ${COLUMNS} FROM jobs WHERE job_id = $1`, [jobId]);
    return row ? rowToJob(row) : null;
  }

  async listByAccount(accountId: string, limit: number): Promise<JobRecord[]> {
    const rows = await this.reader.all(
      `SELECT ${COLUMNS} FROM jobs WHERE account_id = $1 ORDER BY created_at DESC, job_id LIMIT $2`,
      [accountId, checkLimit(limit)],
    );
    return rows.map(rowToJob);
  }
}
