export type JobKind =
  | 'aggregation'
  | 'notification'
  | 'transitions'
  | 'classification'
  | 'backfill'
  | 'export'
  | 'project_deletion'
  | 'account_deletion'
  | 'erasure';
export type JobStatus = 'queued' | 'running' | 'succeeded' | 'failed';

export interface JobProgress {
  done: number;
  /** Null while unknown. */
  total: number | null;
}

/**
 * A dispatched job (DESIGN.md, Jobs). Every state change writes the whole record again with a
 * greater `updated_at`; the newest record wins.
 */
export interface JobRecord {
  job_id: string;
  account_id: string;
  project_id: string;
  kind: JobKind;
  status: JobStatus;
  /** The validated trigger body. */
  request: Record<string, unknown>;
  created_at: number;
  started_at: number | null;
  finished_at: number | null;
  progress: JobProgress | null;
  result: unknown;
  error: string | null;
  /** How many times a worker started it (a redelivery after a crash starts it again). */
  attempts: number;
  /** The worker that ran (or runs) it: `host:pid`. */
  worker: string | null;
  updated_at: number;
}

/** The message a trigger publishes onto the job kind's command topic. */
export interface JobCommand {
  job_id: string;
  kind: JobKind;
}
