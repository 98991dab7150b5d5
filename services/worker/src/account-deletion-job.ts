import type { JobContext, JobHandler } from '@spoor/jobs';
import type { Kv } from '@spoor/kv';
import { accountProjects, type Store } from '@spoor/store';
import { deleteProjectData } from './project-deletion-job.js';
import { rawCopiesGoneBy, type RawCopies } from './raw-copies.js';

interface Deps extends RawCopies {
  store: Store;
  kv: Kv;
}

/**
 * DELETE /v1/users/account (issue 17): each project only the account is a member of as a project
 * deletion does (store rows, then KV keys), then the account itself — its row, API keys, email,
 * memberships and jobs; projects shared with others stay theirs (issue 45).
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
    projects += await deleteOrphans(deps, job.account_id, job.job_id);
    return { deleted: true, projects, raw_copies_gone_by: rawCopiesGoneBy(deps) };
  };
}

/** Projects it registered while the job ran, which its memberships' deletion left without a member. */
async function deleteOrphans(deps: Deps, accountId: string, jobId: string): Promise<number> {
  let deleted = 0;
  for (const p of await deps.store.projects.listByAccount(accountId)) {
    if ((await deps.store.members.list(p.project_id)).length > 0) continue;
    await deleteProjectData(deps, p.project_id, jobId);
    deleted++;
  }
  return deleted;
}

/**
 * The projects only this account is a member of go whole; from the others only its membership
 * goes (with the account's row, deleteAccount). A project it became the last owner of, shared
 * with others, since the request was accepted fails the job before anything is deleted (issue 45).
 */
async function deleteProjects(deps: Deps, accountId: string, jobId: string, ctx: JobContext): Promise<number> {
  const { remove, blocks } = await accountProjects(deps.store.members, accountId);
  if (blocks.length > 0)
    throw new Error(
      `the account is the last owner of ${blocks.length} project(s) others share; transfer ownership first`,
    );
  for (const [i, projectId] of remove.entries()) {
    await ctx.progress(i, remove.length);
    await deleteProjectData(deps, projectId, jobId);
  }
  return remove.length;
}
