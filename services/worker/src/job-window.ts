import { JobFailure } from '@spoor/jobs';
import type { JobRecord } from '@spoor/schemas';
import type { Window } from '@spoor/store';

/** A trigger without a window covers the day before it was made (DESIGN.md, Jobs; docs/jobs.md). */
export const DEFAULT_WINDOW_MS = 24 * 3_600_000;

/**
 * The window a job covers. Taken from the job's request and creation time, never the clock, so
 * a job that another worker takes over covers the same window.
 */
export function jobWindow(job: JobRecord): Window {
  const req = job.request as { window_start?: number; window_end?: number };
  const end =
    req.window_end ??
    (req.window_start !== undefined ? Math.max(job.created_at, req.window_start + 1) : job.created_at);
  // Clamped at the epoch: a window ending near 0 must not reach into negative times, which no
  // timestamp (and no response schema) admits (schemathesis found window_end: 0).
  const start = req.window_start ?? Math.max(0, end - DEFAULT_WINDOW_MS);
  if (start >= end) throw new JobFailure(`window_start (${start}) must be before window_end (${end})`);
  return { start, end };
}
