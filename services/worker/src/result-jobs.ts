import { JobFailure, type JobHandler } from '@spoor/jobs';
import { RECORD_KINDS, type ProjectRecord, type TransitionMatrix } from '@spoor/schemas';
import type { Store, Window } from '@spoor/store';
import { jobWindow } from './job-window.js';
import { buildOverview, windowId } from './overview-builder.js';
import type { WebhookOutbox } from './webhook-outbox.js';

export interface ResultJobDeps {
  store: Store;
  clock: () => number;
  outbox: WebhookOutbox;
}

export async function projectOf(store: Store, projectId: string): Promise<ProjectRecord> {
  const project = await store.projects.get(projectId);
  if (!project) throw new JobFailure('The project no longer exists');
  return project;
}

/** POST /v1/trigger/aggregation: the window's rollup, stored as the project's overview; announces digest.created. */
export function aggregationJob(deps: ResultJobDeps): JobHandler {
  return async (job) => {
    const project = await projectOf(deps.store, job.project_id);
    const w = jobWindow(job);
    const overview = await buildOverview(deps.store, project, w, job.job_id, deps.clock());
    await deps.outbox.emit(project, 'digest.created', { overview });
    return {
      window_start: w.start,
      window_end: w.end,
      events: overview.events,
      sessions: overview.sessions,
      visitors: overview.visitors,
    };
  };
}

/** POST /v1/trigger/transitions: the action-to-action matrix of the window, stored; GET /v1/transitions answers the latest. */
export function transitionsJob(deps: ResultJobDeps): JobHandler {
  return async (job) => {
    const project = await projectOf(deps.store, job.project_id);
    const w = jobWindow(job);
    const now = deps.clock();
    // Latest = greatest sort_key: the creation time, so a re-run of an older window becomes the latest.
    const matrix = await buildTransitions(deps.store, project, w, job.job_id, now, now);
    return {
      window_start: w.start,
      window_end: w.end,
      sessions: matrix.sessions,
      states: matrix.states.length,
      transitions: matrix.transitions.length,
    };
  };
}

/**
 * Counts a window's transition matrix and stores it under `sortKey` (which matrix is the
 * latest): a job's creation time, or the one it already had when a recount replaces it.
 */
export async function buildTransitions(
  store: Store,
  project: ProjectRecord,
  w: Window,
  jobId: string | null,
  now: number,
  sortKey: number,
): Promise<TransitionMatrix> {
  const counts = await store.analytics.transitions(project.project_id, w);
  const outOf = new Map<string, number>();
  for (const c of counts.cells) outOf.set(c.from, (outOf.get(c.from) ?? 0) + c.count);
  const states = [...new Set(counts.cells.flatMap((c) => [c.from, c.to]))].sort();
  const matrix: TransitionMatrix = {
    origin: project.origin,
    project: project.project,
    window_start: w.start,
    window_end: w.end,
    created_at: now,
    job_id: jobId,
    sessions: counts.sessions,
    states,
    transitions: counts.cells.map((c) => ({
      ...c,
      probability: Math.round((c.count / outOf.get(c.from)!) * 1e6) / 1e6,
    })),
  };
  await store.records.put([
    {
      kind: RECORD_KINDS.transitions,
      project_id: project.project_id,
      id: windowId(w),
      parent_id: '',
      sort_key: sortKey,
      data: matrix,
      updated_at: now,
      deleted: false,
    },
  ]);
  return matrix;
}
