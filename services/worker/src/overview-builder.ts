import { RECORD_KINDS, type Overview, type ProjectRecord } from '@spoor/schemas';
import type { Store, Window } from '@spoor/store';

/** Entries of each top list in an overview. */
export const OVERVIEW_TOP_N = 10;

/** The record id of a window's overview: re-running a window replaces it, never doubles it. */
export const windowId = (w: Window) => `${w.start}-${w.end}`;

/** Aggregates a project's window and stores it as its overview (the digest's data). */
export async function buildOverview(store: Store, project: ProjectRecord, w: Window, jobId: string | null, now: number): Promise<Overview> {
  const a = await store.analytics.aggregate(project.project_id, w, OVERVIEW_TOP_N);
  const overview: Overview = {
    origin: project.origin,
    project: project.project,
    window_start: w.start,
    window_end: w.end,
    created_at: now,
    job_id: jobId,
    events: a.events,
    sessions: a.sessions,
    visitors: a.visitors,
    bounce_rate: a.sessions === 0 ? 0 : Math.round((a.bounces / a.sessions) * 10_000) / 10_000,
    duration_ms: a.duration_ms,
    actions: a.actions,
    pages: a.pages,
    referrers: a.referrers,
    utm_sources: a.utm_sources,
    countries: a.countries,
    browsers: a.browsers,
    devices: a.devices,
    tags: a.tags,
  };
  await store.records.put([{ kind: RECORD_KINDS.overview, project_id: project.project_id, id: windowId(w), parent_id: '', sort_key: w.end, data: overview, updated_at: now, deleted: false }]);
  return overview;
}
