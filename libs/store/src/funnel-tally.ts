// The funnel's arithmetic in TypeScript: the path for steps SQL cannot evaluate, and the shared
// shaping of what either path counted. The rules are the SQL's (docs/analytics.md, Funnels):
// strict order: step k is reached at an event matching it when some strictly earlier event
// reached step k-1 from a start (a step-1 event) at most the conversion window before it;
// any order: at an event when, within the conversion window ending there, every step 1..k has a
// matching event. A unit's first reach of step k is the earliest such event.
import { FUNNEL_LIMITS } from '@spoor/schemas';
import { toFloatOrNull, toInt, toStr } from './column-values.js';
import { rowToEnrichedEvent } from './event-row.js';
import type { FunnelCounts, FunnelOrder, FunnelSpec, FunnelStepCount } from './funnel-query.js';

export interface UnitEvent {
  t: number;
  /** Which steps the event matches. */
  matches: boolean[];
}

/** The first time the unit reached each step (null: never), from its events sorted by time. */
export function firstReaches(
  events: readonly UnitEvent[],
  steps: number,
  order: FunnelOrder,
  windowMs: number,
): Array<number | null> {
  return order === 'strict' ? strictReaches(events, steps, windowMs) : anyOrderReaches(events, steps, windowMs);
}

function strictReaches(events: readonly UnitEvent[], steps: number, windowMs: number): Array<number | null> {
  const first: Array<number | null> = new Array(steps).fill(null);
  // The latest start among events (strictly earlier than the current time) that reached each step.
  const best: Array<number | null> = new Array(steps).fill(null);
  for (let i = 0; i < events.length;) {
    const t = events[i]!.t;
    let j = i;
    const reached: Array<number | null> = new Array(steps).fill(null);
    for (; j < events.length && events[j]!.t === t; j++) {
      const m = events[j]!.matches;
      for (let k = 0; k < steps; k++) {
        if (!m[k]) continue;
        const start = k === 0 ? t : best[k - 1]!;
        if (k > 0 && (best[k - 1] === null || t - start > windowMs)) continue;
        if (reached[k] === null || start > reached[k]!) reached[k] = start;
      }
    }
    for (let k = 0; k < steps; k++) {
      if (reached[k] === null) continue;
      if (first[k] === null) first[k] = t;
      if (best[k] === null || reached[k]! > best[k]!) best[k] = reached[k]!;
    }
    i = j;
  }
  return first;
}

function anyOrderReaches(events: readonly UnitEvent[], steps: number, windowMs: number): Array<number | null> {
  const first: Array<number | null> = new Array(steps).fill(null);
  const last: Array<number | null> = new Array(steps).fill(null);
  for (let i = 0; i < events.length;) {
    const t = events[i]!.t;
    let j = i;
    for (; j < events.length && events[j]!.t === t; j++) {
      events[j]!.matches.forEach((m, k) => {
        if (m) last[k] = t;
      });
    }
    for (let k = 0; k < steps; k++) {
      if (last[k] === null || last[k]! < t - windowMs) break;
      if (first[k] === null) first[k] = t;
    }
    i = j;
  }
  return first;
}

/** The median as DuckDB's quantile_cont and ClickHouse's quantileExactInclusive take it (interpolated). */
export function medianOf(values: number[]): number | null {
  if (values.length === 0) return null;
  const xs = [...values].sort((a, b) => a - b);
  const pos = (xs.length - 1) / 2;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return xs[lo]! + (xs[hi]! - xs[lo]!) * (pos - lo);
}

/** Counts of one group of units from their first reaches. */
export function countReaches(units: ReadonlyArray<Array<number | null>>, steps: number): FunnelStepCount[] {
  return Array.from({ length: steps }, (_, k) => {
    const entered = units.filter((u) => u[k] !== null).length;
    const gaps = k + 1 < steps ? units.filter((u) => u[k + 1] !== null).map((u) => u[k + 1]! - u[k]!) : [];
    return { entered, medianMsToNext: roundMs(medianOf(gaps)) };
  });
}

function roundMs(v: number | null): number | null {
  return v === null || !Number.isFinite(v) ? null : Math.round(v);
}

/** Most entered first, then by value (null last); at most `limit` groups. */
export function rankGroups(groups: FunnelCounts['groups'], limit: number): FunnelCounts['groups'] {
  return [...groups]
    .sort((a, b) => (b.steps[0]?.entered ?? 0) - (a.steps[0]?.entered ?? 0) || compareValues(a.value, b.value))
    .slice(0, limit);
}

function compareValues(a: string | null, b: string | null): number {
  if (a === b) return 0;
  if (a === null) return 1;
  if (b === null) return -1;
  return a < b ? -1 : 1;
}

/** One SQL row of counts: e1…en entered, m1…m(n-1) medians. */
export function stepCountsOfRow(row: Record<string, unknown>, steps: number): FunnelStepCount[] {
  return Array.from({ length: steps }, (_, k) => ({
    entered: toInt(row[`e${k + 1}`]),
    medianMsToNext: k + 1 < steps ? roundMs(toFloatOrNull(row[`m${k + 1}`])) : null,
  }));
}

export const emptyCounts = (steps: number): FunnelStepCount[] =>
  Array.from({ length: steps }, () => ({ entered: 0, medianMsToNext: null }));

/** Rows sorted by unit, then time: each unit's first reaches, then counts per group. */
export function tallyInTypeScript(
  rows: Array<Record<string, unknown>>,
  spec: FunnelSpec,
  groupOf: Map<string, string | null> | null,
): FunnelCounts {
  const n = spec.steps.length;
  const all: Array<Array<number | null>> = [];
  const byGroup = new Map<string | null, Array<Array<number | null>>>();
  const finish = (unit: string, events: UnitEvent[]) => {
    const reaches = firstReaches(events, n, spec.order, spec.conversionWindowMs);
    if (reaches[0] === null) return;
    all.push(reaches);
    if (!groupOf) return;
    const g = groupOf.get(unit) ?? null;
    const list = byGroup.get(g);
    if (list) list.push(reaches);
    else byGroup.set(g, [reaches]);
  };
  let unit: string | null = null;
  let events: UnitEvent[] = [];
  for (const r of rows) {
    const u = toStr(r.funnel_unit);
    if (u !== unit) {
      if (unit !== null) finish(unit, events);
      unit = u;
      events = [];
    }
    const e = rowToEnrichedEvent(r);
    const matches = spec.steps.map((s) => s.matches(e));
    if (matches.some(Boolean)) events.push({ t: e.timestamp, matches });
  }
  if (unit !== null) finish(unit, events);
  return {
    evaluatedIn: 'typescript',
    total: countReaches(all, n),
    groups: groupOf
      ? rankGroups(
          [...byGroup].map(([value, units]) => ({ value, steps: countReaches(units, n) })),
          FUNNEL_LIMITS.maxGroups,
        )
      : [],
  };
}
