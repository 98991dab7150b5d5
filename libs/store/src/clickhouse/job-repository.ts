import type { JobRecord } from '@spoor/schemas';
import type { JobRepository } from '../store.js';
import { checkLimit } from '../column-values.js';
import { JOB_COLUMNS, jobToRow, rowToJob } from '../job-row.js';
import type { ClickHouseConnection } from './clickhouse-connection.js';

const COLUMNS = JOB_COLUMNS.join(', ');

/** ReplacingMergeTree(updated_at) ORDER BY job_id; reads use FINAL (migrations.ts, step 3). */
export class ClickHouseJobRepository implements JobRepository {
  constructor(private readonly ch: ClickHouseConnection) {}

  async put(job: JobRecord): Promise<void> {
    await this.ch.insert('jobs', [jobToRow(job)]);
  }

  async get(jobId: string): Promise<JobRecord | null> {
    const [row] = await this.ch.rows(
      `SELECT ${COLUMNS} FROM ${this.ch.table('jobs')} FINAL WHERE job_id = {job_id:String}`,
      { job_id: jobId },
    );
    return row ? rowToJob(row) : null;
  }

  async listByAccount(accountId: string, limit: number): Promise<JobRecord[]> {
    const rows = await this.ch.rows(
      `SELECT ${COLUMNS} FROM ${this.ch.table('jobs')} FINAL WHERE account_id = {account_id:String}
       ORDER BY created_at DESC, job_id LIMIT {limit:UInt64}`,
      { account_id: accountId, limit: checkLimit(limit) },
    );
    return rows.map(rowToJob);
  }
}
