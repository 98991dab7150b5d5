import type { JobContext, JobHandler } from '@spoor/jobs';
import type { Kv } from '@spoor/kv';
import type { Store } from '@spoor/store';
import { deleteProjectData } from './project-deletion-job.js';
import { rawCopiesGoneBy, type RawCopies } from './raw-copies.js';

interface Deps extends RawCopies {
  store: Store;
  kv: Kv;
}

/**
 * DELETE /v1/users/account (issue 17): each of the account's projects as a project deletion
 * does (store rows, then KV keys), then the account itself — its row, API keys, email and jobs.
 * The account goes last so that a job which fails half way leaves an owner who can see it and
 * try again, never projects that nobody can reach; its tokens stop working at that last step,
 * which is how a client following the job learns it ended. Projects created while it ran are
 * deleted after the account. Idempotent: a job taken over after a crash deletes what is left.
 * Only this job's own record stays, naming nothing but the account id.
 */
export function accountDeletionJob(deps: Deps): JobHandler {
  return async (job, ctx) => {
    let projects = await deleteProjects(deps, job.account_id, job.job_id, ctx);
    await deps.store.erasure.deleteAccount(job.account_id, job.job_id);
    projects += await deleteProjects(deps, job.account_id, job.job_id, ctx);
    return { deleted: true, projects, raw_copies_gone_by: rawCopiesGoneBy(deps) };
  };
}

async function deleteProjects(deps: Deps, accountId: string, jobId: string, ctx: JobContext): Promise<number> {
  const projects = await deps.store.projects.listByAccount(accountId);
  for (const [i, project] of projects.entries()) {
    await ctx.progress(i, projects.length);
    await deleteProjectData(deps, project.project_id, jobId);
  }
  return projects.length;
}
