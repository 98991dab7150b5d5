// The live view (issue 18; docs/analytics.md, Live view): who is on the site in the last few
// minutes, read from the enriched events in each engine's SQL. Three small queries over a
// short window; the gateway runs them once per tick per project, whatever the number of viewers.
import { checkLimit } from './column-values.js';

export interface LiveSpec {
  /** Events with a timestamp at or after this count as active (now − 5 minutes). */
  since: number;
  /** Pages listed, most visitors first. */
  topPages: number;
  /** Newest events listed. */
  latest: number;
}

/** One of the newest events, without IP or user agent (the live view never shows either). */
export interface LiveEvent {
  event_id: string;
  action: string;
  path: string | null;
  timestamp: number;
  session_id: string;
  browser: string | null;
  os: string | null;
  device: string | null;
  country: string | null;
}

export interface LiveCounts {
  /** Distinct sessions with an event since `since`; bots left out. */
  visitors: number;
  /** Each active session counted on the path of its newest event that has one. */
  pages: Array<{ path: string; visitors: number }>;
  /** Newest first (timestamp, then event_id). */
  events: LiveEvent[];
}

export interface LiveRepository {
  snapshot(projectId: string, spec: LiveSpec): Promise<LiveCounts>;
}

export const checkLiveSpec = (spec: LiveSpec): LiveSpec => ({
  since: spec.since,
  topPages: checkLimit(spec.topPages),
  latest: checkLimit(spec.latest),
});

const text = (v: unknown): string | null => (v === null || v === undefined || v === '' ? null : String(v));

/** Engine rows (ClickHouse quotes 64-bit integers, DuckDB may answer bigints) to plain values. */
export function toLiveCounts(
  visitors: unknown,
  pages: Array<Record<string, unknown>>,
  events: Array<Record<string, unknown>>,
): LiveCounts {
  return {
    visitors: Number(visitors ?? 0),
    pages: pages.map((r) => ({ path: String(r['path']), visitors: Number(r['visitors']) })),
    events: events.map((r) => ({
      event_id: String(r['event_id']),
      action: String(r['action']),
      path: text(r['path']),
      timestamp: Number(r['timestamp']),
      session_id: String(r['session_id'] ?? ''),
      browser: text(r['browser']),
      os: text(r['os']),
      device: text(r['device']),
      country: text(r['country']),
    })),
  };
}
