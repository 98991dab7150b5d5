// The hours both engines' rollups are kept by (duckdb/rollups.ts, clickhouse/rollups.ts; issue 15).

export const HOUR_MS = 3_600_000;

/**
 * A window split at whole hours: `[lo, hi)` hour numbers come from the rollups, the events of
 * `[start, lo·H)` and `[hi·H, end)` from the table.
 */
export interface HourSplit {
  lo: number;
  hi: number;
}

/** Null when the window holds no whole hour. */
export function splitWindow(start: number, end: number): HourSplit | null {
  const lo = Math.ceil(start / HOUR_MS);
  const hi = Math.floor(end / HOUR_MS);
  return lo < hi ? { lo, hi } : null;
}

/**
 * Runs of consecutive hours, [lo, hi), to rebuild with one statement each; runs closer than
 * `gap` hours are joined (the hours between are rebuilt too, which changes nothing in them).
 */
export function hourRuns(hours: readonly number[], gap = 4): Array<[number, number]> {
  const runs: Array<[number, number]> = [];
  for (const h of [...hours].sort((a, b) => a - b)) {
    const last = runs[runs.length - 1];
    if (last && h < last[1] + gap) last[1] = Math.max(last[1], h + 1);
    else runs.push([h, h + 1]);
  }
  return runs;
}

/**
 * A store call's rollup refresh, run at most once however many of its queries need the rollups
 * (an overview's figures and its series both do): each refresh asks the engine for the project's
 * marked hours, and DuckDB's waits for the writer.
 */
export function refreshOnce(refresh: () => Promise<void>): () => Promise<void> {
  let refreshed: Promise<void> | undefined;
  return () => (refreshed ??= refresh());
}
