import { PAGE_VIEW_ACTIONS } from '@spoor/schemas';
import type { SeriesBucket, TransitionCounts, WindowAggregates } from './store.js';
import { toFloatOrNull, toInt, toStr } from './column-values.js';

/** Every action a list holds at most: the "events per action" table of an overview. */
export const MAX_ACTIONS = 500;

/** '$start' and '$end' bracket every session's path in a transition matrix. */
export const START_STATE = '$start';
export const END_STATE = '$end';

/** PAGE_VIEW_ACTIONS as an SQL list of literals (constants, never user input). */
export const PAGE_VIEW_SQL = [...PAGE_VIEW_ACTIONS].map((a) => `'${a.replace(/'/g, "''")}'`).join(', ');

/** The session dimensions of an overview, each an SQL expression per engine over the sessions table. */
export type SessionDimension = 'referrers' | 'utm_sources' | 'countries' | 'browsers' | 'devices';

export const toRanked = (rows: Array<Record<string, unknown>>) =>
  rows.map((r) => ({ name: toStr(r.name), count: toInt(r.count) }));

/** UTF-8 byte order, as both engines order strings. */
const byBytes = (a: string, b: string) => Buffer.compare(Buffer.from(a), Buffer.from(b));

/** Counts by name as the top list `ORDER BY count DESC, name LIMIT top` would give them. */
export function rankCounts(
  counts: Iterable<readonly [string, number]>,
  top: number,
): Array<{ name: string; count: number }> {
  return [...counts]
    .map(([name, count]) => ({ name, count }))
    .sort((a, b) => b.count - a.count || byBytes(a.name, b.name))
    .slice(0, top);
}

/** A series bucket is a positive whole number of milliseconds (a zero would divide by zero in SQL). */
export function checkBucket(ms: number): number {
  if (!Number.isSafeInteger(ms) || ms < 1) throw new RangeError(`bucket must be a positive integer of ms, got ${ms}`);
  return ms;
}

/** Merges per-bucket event and session rows (bucket index `b`) into buckets, ascending. */
export function toSeries(
  start: number,
  bucketMs: number,
  events: Array<Record<string, unknown>>,
  sessions: Array<Record<string, unknown>>,
): SeriesBucket[] {
  const byIndex = new Map<number, SeriesBucket>();
  const at = (b: unknown) => {
    const i = toInt(b);
    let bucket = byIndex.get(i);
    if (!bucket) byIndex.set(i, (bucket = { start: start + i * bucketMs, events: 0, visitors: 0, sessions: 0 }));
    return bucket;
  };
  for (const r of events) Object.assign(at(r.b), { events: toInt(r.events), visitors: toInt(r.visitors) });
  for (const r of sessions) at(r.b).sessions = toInt(r.sessions);
  return [...byIndex.values()].sort((a, b) => a.start - b.start);
}

export function toTransitions(rows: Array<Record<string, unknown>>): TransitionCounts {
  const cells = rows
    .map((r) => ({ from: toStr(r.from_state), to: toStr(r.to_state), count: toInt(r.count) }))
    .sort((a, b) => (a.from < b.from ? -1 : a.from > b.from ? 1 : a.to < b.to ? -1 : a.to > b.to ? 1 : 0));
  const sessions = cells.filter((c) => c.from === START_STATE).reduce((n, c) => n + c.count, 0);
  return { sessions, cells };
}

/** Headline figures; quantiles are 0 when the window has no session (the engines answer NULL or NaN). */
export function toHeadline(
  events: Record<string, unknown>,
  sessions: Record<string, unknown>,
): Pick<WindowAggregates, 'events' | 'visitors' | 'sessions' | 'bounces' | 'duration_ms'> {
  const q = (v: unknown) => {
    const n = toFloatOrNull(v);
    return n === null || !Number.isFinite(n) ? 0 : Math.round(n);
  };
  const count = toInt(sessions.sessions);
  return {
    events: toInt(events.events),
    visitors: toInt(events.visitors),
    sessions: count,
    bounces: toInt(sessions.bounces),
    duration_ms:
      count === 0 ? { p50: 0, p90: 0, p99: 0 } : { p50: q(sessions.p50), p90: q(sessions.p90), p99: q(sessions.p99) },
  };
}
