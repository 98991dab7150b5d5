import { RECORD_KINDS, type Overview, type ProjectRecord } from '@spoor/schemas';
import type { SeriesBucket, Store, Window } from '@spoor/store';

/** Entries of each top list in an overview. */
export const OVERVIEW_TOP_N = 10;

/** Bucket lengths an overview's series steps through: whole minutes, hours, days. */
const BUCKETS_MS = [60_000, 300_000, 900_000, 3_600_000, 3 * 3_600_000, 6 * 3_600_000, 86_400_000];
/** A chart reads well with at most this many points. */
export const MAX_SERIES_POINTS = 200;

/** The shortest bucket that keeps the window within MAX_SERIES_POINTS; whole days beyond 200 days. */
export function seriesBucketMs(w: Window): number {
  const span = w.end - w.start;
  const fits = BUCKETS_MS.find((b) => Math.ceil(span / b) <= MAX_SERIES_POINTS);
  return fits ?? Math.ceil(span / MAX_SERIES_POINTS / 86_400_000) * 86_400_000;
}

/** Every bucket of the window, oldest first: the store's sparse buckets, zeros between them. */
export function fillSeries(w: Window, bucketMs: number, sparse: SeriesBucket[]): SeriesBucket[] {
  const byStart = new Map(sparse.map((b) => [b.start, b]));
  const out: SeriesBucket[] = [];
  for (let start = w.start; start < w.end; start += bucketMs)
    out.push(byStart.get(start) ?? { start, events: 0, visitors: 0, sessions: 0 });
  return out;
}

/** The record id of a window's overview: re-running a window replaces it, never doubles it. */
export const windowId = (w: Window) => `${w.start}-${w.end}`;

/** Aggregates a project's window and stores it as its overview (the digest's data). */
export async function buildOverview(
  store: Store,
  project: ProjectRecord,
  w: Window,
  jobId: string | null,
  now: number,
): Promise<Overview> {
  const bucketMs = seriesBucketMs(w);
  const a = await store.analytics.overview(project.project_id, w, OVERVIEW_TOP_N, bucketMs);
  const series = fillSeries(w, bucketMs, a.series);
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
    bucket_ms: bucketMs,
    series,
  };
  await store.records.put([
    {
      kind: RECORD_KINDS.overview,
      project_id: project.project_id,
      id: windowId(w),
      parent_id: '',
      sort_key: w.end,
      data: overview,
      updated_at: now,
      deleted: false,
    },
  ]);
  return overview;
}
