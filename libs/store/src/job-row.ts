// Row shape of the jobs table, shared by both backends (see event-row.ts). request, progress
// and result are JSON text in both: read back whole, never queried inside.
import type { JobKind, JobProgress, JobRecord, JobStatus } from '@spoor/schemas';
import { toInt, toIntOrNull, toStr, toStrOrNull, toStructured } from './column-values.js';

export const JOB_COLUMNS = [
  'job_id',
  'account_id',
  'project_id',
  'kind',
  'status',
  'request',
  'created_at',
  'started_at',
  'finished_at',
  'progress',
  'result',
  'error',
  'attempts',
  'worker',
  'updated_at',
] as const;

export type JobRow = Record<(typeof JOB_COLUMNS)[number], unknown>;

export function jobToRow(j: JobRecord): JobRow {
  return {
    job_id: j.job_id,
    account_id: j.account_id,
    project_id: j.project_id,
    kind: j.kind,
    status: j.status,
    request: JSON.stringify(j.request),
    created_at: j.created_at,
    started_at: j.started_at,
    finished_at: j.finished_at,
    progress: j.progress === null ? null : JSON.stringify(j.progress),
    // `result` is open-shaped; an absent one is stored as JSON null.
    result: JSON.stringify(j.result ?? null),
    error: j.error,
    attempts: j.attempts,
    worker: j.worker,
    updated_at: j.updated_at,
  };
}

export function rowToJob(r: Record<string, unknown>): JobRecord {
  return {
    job_id: toStr(r.job_id),
    account_id: toStr(r.account_id),
    project_id: toStr(r.project_id),
    kind: toStr(r.kind) as JobKind,
    status: toStr(r.status) as JobStatus,
    request: toStructured<Record<string, unknown>>(r.request),
    created_at: toInt(r.created_at),
    started_at: toIntOrNull(r.started_at),
    finished_at: toIntOrNull(r.finished_at),
    progress: r.progress === null || r.progress === undefined ? null : toStructured<JobProgress>(r.progress),
    result: JSON.parse(toStr(r.result)) as unknown,
    error: toStrOrNull(r.error),
    attempts: toInt(r.attempts),
    worker: toStrOrNull(r.worker),
    updated_at: toInt(r.updated_at),
  };
}
