import type { JobHandler } from '@spoor/jobs';
import type { Kv } from '@spoor/kv';
import { projectKvPrefixes } from '@spoor/schemas';
import type { Store } from '@spoor/store';
import { rawCopiesGoneBy, type RawCopies } from './raw-copies.js';

/**
 * DELETE /v1/projects: the project row and every row of the project in the store (one
 * Store.erasure call; the job's own record stays, so its owner sees it succeed), then every KV
 * key of the project. Idempotent: a job taken over after a crash deletes what is left, and a
 * project already gone is no failure.
 */
export function projectDeletionJob(deps: { store: Store; kv: Kv } & RawCopies): JobHandler {
  return async (job, ctx) => {
    await ctx.progress(0, 1);
    const keys = await deleteProjectData(deps, job.project_id, job.job_id);
    await ctx.progress(1, 1);
    return { deleted: true, kv_keys: keys, raw_copies_gone_by: rawCopiesGoneBy(deps) };
  };
}

/**
 * Everything of one project: its store rows (one Store.erasure call; the deleting job's record
 * `keepJobId` stays), then its KV keys. Answers how many KV keys went. Shared by the project
 * and the account deletion jobs.
 */
export async function deleteProjectData(
  deps: { store: Store; kv: Kv },
  projectId: string,
  keepJobId: string,
): Promise<number> {
  await deps.store.erasure.deleteProject(projectId, keepJobId);
  return deps.kv.deletePrefixes(projectKvPrefixes(projectId));
}
