import { randomUUID } from 'node:crypto';
import type { Bus } from '@spoor/bus';
import type { JobCommand, JobKind, JobRecord } from '@spoor/schemas';
import type { JobRepository } from '@spoor/store';

export interface JobDispatcherDeps {
  jobs: JobRepository;
  bus: Bus;
  /** The command topic of a job kind. */
  topic: (kind: JobKind) => string;
  clock: () => number;
}

/** The publish failed: the job is recorded as failed and the caller should answer 503. */
export class JobDispatchError extends Error {
  constructor(
    readonly job: JobRecord,
    cause: unknown,
  ) {
    super('The job could not be queued', { cause });
    this.name = 'JobDispatchError';
  }
}

/**
 * What a trigger endpoint does (DESIGN.md, Jobs): record the job as queued, then publish its
 * command keyed by job id. The record comes first so that a worker that receives the command
 * always finds it; a publish that fails marks the record failed instead of leaving it queued.
 */
export class JobDispatcher {
  constructor(private readonly deps: JobDispatcherDeps) {}

  async dispatch(
    accountId: string,
    projectId: string,
    kind: JobKind,
    request: Record<string, unknown>,
  ): Promise<JobRecord> {
    const now = this.deps.clock();
    const job: JobRecord = {
      job_id: randomUUID(),
      account_id: accountId,
      project_id: projectId,
      kind,
      status: 'queued',
      request,
      created_at: now,
      started_at: null,
      finished_at: null,
      progress: null,
      result: null,
      error: null,
      attempts: 0,
      worker: null,
      updated_at: now,
    };
    await this.deps.jobs.put(job);
    const command: JobCommand = { job_id: job.job_id, kind };
    try {
      await this.deps.bus.publish(this.deps.topic(kind), [{ key: job.job_id, value: JSON.stringify(command) }]);
    } catch (err) {
      const failed: JobRecord = {
        ...job,
        status: 'failed',
        error: 'The job could not be queued',
        finished_at: this.deps.clock(),
        updated_at: Math.max(this.deps.clock(), now + 1),
      };
      await this.deps.jobs.put(failed).catch(() => {});
      throw new JobDispatchError(failed, err);
    }
    return job;
  }
}
