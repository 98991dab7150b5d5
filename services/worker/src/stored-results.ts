// Stored overviews and transition matrices are figures of the events (issue 43): when an
// erasure or a retention pass takes events away, the ones whose window overlaps what went are
// counted again from what is left, under the same record (same window id, same job, same place in
// the latest-first order), so GET /v1/overviews and GET /v1/transitions never show what is gone.
import { RECORD_KINDS, type Overview, type ProjectRecord, type TransitionMatrix } from '@spoor/schemas';
import type { Store } from '@spoor/store';
import { buildOverview } from './overview-builder.js';
import { buildTransitions } from './result-jobs.js';

/** Records looked at per kind: far more than a project keeps (record-retention.ts prunes them). */
const RECORDS_SCANNED = 10_000;

export interface Recounted {
  overviews: number;
  transitions: number;
}

interface Windowed {
  window_start: number;
  window_end: number;
  job_id: string | null;
}

const overlaps = (d: Windowed, span: { start: number; end: number }) =>
  d.window_start < span.end && d.window_end > span.start;

/**
 * Recounts the project's stored overviews and matrices whose window overlaps `span` (end
 * exclusive); `beat` after each, so a long recount keeps its job claimed.
 */
export async function recountStoredResults(
  store: Store,
  project: ProjectRecord,
  span: { start: number; end: number },
  clock: () => number,
  beat: () => Promise<void> = async () => {},
): Promise<Recounted> {
  const done: Recounted = { overviews: 0, transitions: 0 };
  // An overview's sort_key is its window's end: those ending after the span's start.
  const overviews = await store.records.list<Overview>(RECORD_KINDS.overview, project.project_id, {
    from: span.start + 1,
    limit: RECORDS_SCANNED,
  });
  for (const { data } of overviews.filter((r) => overlaps(r.data, span))) {
    await buildOverview(store, project, { start: data.window_start, end: data.window_end }, data.job_id, clock());
    done.overviews += 1;
    await beat();
  }
  // A matrix's sort_key is when it was made, which says nothing of its window: every one is looked at.
  const matrices = await store.records.list<TransitionMatrix>(RECORD_KINDS.transitions, project.project_id, {
    limit: RECORDS_SCANNED,
  });
  for (const r of matrices.filter((m) => overlaps(m.data, span))) {
    const w = { start: r.data.window_start, end: r.data.window_end };
    await buildTransitions(store, project, w, r.data.job_id, clock(), r.sort_key);
    done.transitions += 1;
    await beat();
  }
  return done;
}
