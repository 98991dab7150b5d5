import type { JobHandler } from '@spoor/jobs';
import type { Kv } from '@spoor/kv';
import { projectKvPrefixes } from '@spoor/schemas';
import type { Store } from '@spoor/store';

/**
 * DELETE /v1/projects: the project row and every row of the project in the store (one
 * Store.erasure call; the job's own record stays, so its owner sees it succeed), then every KV
 * key of the project. Idempotent: a job taken over after a crash deletes what is left, and a
 * project already gone is no failure.
 */
export function projectDeletionJob(deps: { store: Store; kv: Kv }): JobHandler {
  return async (job, ctx) => {
    await ctx.progress(0, 2);
    await deps.store.erasure.deleteProject(job.project_id, job.job_id);
    await ctx.progress(1, 2);
    const keys = await deps.kv.deletePrefixes(projectKvPrefixes(job.project_id));
    await ctx.progress(2, 2);
    return { deleted: true, kv_keys: keys };
  };
}
