// The funnel's arithmetic in TypeScript: each unit's first reach of each step from its events
// (DuckDB's SQL path after SQL matched the steps, and the path for steps SQL cannot evaluate),
// and the shaping of what was counted. The rules (docs/analytics.md, Funnels; ClickHouse's SQL
// follows them too):
// strict order: step k is reached at an event matching it when some strictly earlier event
// reached step k-1 from a start (a step-1 event) at most the conversion window before it;
// any order: at an event when, within the conversion window ending there, every step 1..k has a
// matching event. A unit's first reach of step k is the earliest such event.
import { FUNNEL_LIMITS } from '@spoor/schemas';
import { toFloatOrNull, toInt, toStr } from './column-values.js';
import { rowToEnrichedEvent } from './event-row.js';
import type { FunnelCounts, FunnelOrder, FunnelSpec, FunnelStepCount } from './funnel-query.js';

/**
 * A unit's event as one number: (ms since the window's start) × STEP_MASK_SPAN + the steps it
 * matches (bit k: step k + 1; FUNNEL_LIMITS.maxSteps is 10). Sorting the numbers sorts by time;
 * DuckDB hands over one list of them per unit, in storage order (sortCodes). Exact in a double: a
 * 92-day window is under 2^33 ms, times 2^10 stays under 2^53.
 */
export const STEP_MASK_SPAN = 1024;

export const eventCode = (sinceStartMs: number, mask: number): number => sinceStartMs * STEP_MASK_SPAN + mask;

/**
 * Sorts codes[from] to codes[to - 1] in place: an insertion sort for a unit's few events (its
 * list arrives nearly in time order), the typed array's sort for long lists.
 */
export function sortCodes(codes: Float64Array, from: number, to: number): void {
  if (to - from > 32) {
    codes.subarray(from, to).sort();
    return;
  }
  for (let i = from + 1; i < to; i++) {
    const x = codes[i]!;
    let j = i - 1;
    for (; j >= from && codes[j]! > x; j--) codes[j + 1] = codes[j]!;
    codes[j + 1] = x;
  }
}

/** "Not reached" in the walk's arrays (times since the window's start are ≥ 0). */
const NONE = -1;

/**
 * The first time (ms since the window's start) the unit reached each step (null: never), from
 * its event codes sorted by time, codes[from] to codes[to - 1].
 */
export function firstReaches(
  codes: ArrayLike<number>,
  from: number,
  to: number,
  steps: number,
  order: FunnelOrder,
  windowMs: number,
): Array<number | null> {
  const walk = new ReachWalk(steps, order, windowMs);
  return Array.from(walk.run(codes, from, to), (t) => (t === NONE ? null : t));
}

/**
 * One pass over a unit's events, reusing its arrays from unit to unit (10^5 units a query).
 * Events of one millisecond act as one event matching the union of their steps: each step only
 * looks at what an earlier millisecond reached.
 */
class ReachWalk {
  /** The first reach of each step, NONE when not reached. */
  private readonly first: Float64Array;
  /** strict: the latest start (a step-1 time) that reached each step; any: the latest time each step occurred. */
  private readonly latest: Float64Array;
  private readonly starts: Float64Array;

  constructor(
    private readonly steps: number,
    private readonly order: FunnelOrder,
    private readonly windowMs: number,
  ) {
    if (steps > Math.log2(STEP_MASK_SPAN)) throw new RangeError(`at most ${Math.log2(STEP_MASK_SPAN)} steps`);
    this.first = new Float64Array(steps);
    this.latest = new Float64Array(steps);
    this.starts = new Float64Array(steps);
  }

  /** The first reaches (valid until the next run). */
  run(codes: ArrayLike<number>, from: number, to: number): Float64Array {
    this.first.fill(NONE);
    this.latest.fill(NONE);
    for (let i = from; i < to;) {
      const t = Math.floor(codes[i]! / STEP_MASK_SPAN);
      const base = t * STEP_MASK_SPAN;
      let mask = 0;
      for (; i < to && codes[i]! < base + STEP_MASK_SPAN; i++) mask |= codes[i]! - base;
      if (this.order === 'strict') this.strict(t, mask);
      else this.anyOrder(t, mask);
    }
    return this.first;
  }

  /** Strict order: step k is reached from the latest start that reached step k - 1 in an earlier millisecond, within the window. */
  private strict(t: number, mask: number): void {
    const { first, latest: best, starts, steps, windowMs } = this;
    for (let k = 0; k < steps; k++) {
      const from = k === 0 ? t : best[k - 1]!;
      starts[k] = mask & (1 << k) && from !== NONE && t - from <= windowMs ? from : NONE;
    }
    for (let k = 0; k < steps; k++) {
      const start = starts[k]!;
      if (start === NONE) continue;
      if (first[k] === NONE) first[k] = t;
      if (start > best[k]!) best[k] = start;
    }
  }

  /** Any order: step k is reached when steps 1..k each occurred within the window ending now. */
  private anyOrder(t: number, mask: number): void {
    const { first, latest: last, steps, windowMs } = this;
    for (let k = 0; k < steps; k++) if (mask & (1 << k)) last[k] = t;
    for (let k = 0; k < steps; k++) {
      if (last[k] === NONE || last[k]! < t - windowMs) break;
      if (first[k] === NONE) first[k] = t;
    }
  }
}

/** Per step of one group: units that reached it, and the times from its first reach to the next's. */
class ReachCounts {
  private readonly entered: number[];
  private readonly gaps: number[][];

  constructor(private readonly steps: number) {
    this.entered = new Array<number>(steps).fill(0);
    this.gaps = Array.from({ length: steps }, () => []);
  }

  add(first: Float64Array): void {
    for (let k = 0; k < this.steps; k++) {
      if (first[k] === NONE) continue;
      this.entered[k]!++;
      if (k + 1 < this.steps && first[k + 1] !== NONE) this.gaps[k]!.push(first[k + 1]! - first[k]!);
    }
  }

  counts(): FunnelStepCount[] {
    return this.entered.map((entered, k) => ({ entered, medianMsToNext: roundMs(medianOf(this.gaps[k]!)) }));
  }
}

/** Units' first reaches, counted in total and per breakdown value: what both evaluation paths end in. */
export class FunnelTally {
  private readonly walk: ReachWalk;
  private readonly total: ReachCounts;
  private readonly byGroup = new Map<string | null, ReachCounts>();

  constructor(
    private readonly spec: FunnelSpec,
    private readonly evaluatedIn: FunnelCounts['evaluatedIn'],
  ) {
    this.walk = new ReachWalk(spec.steps.length, spec.order, spec.conversionWindowMs);
    this.total = new ReachCounts(spec.steps.length);
  }

  /** One unit: its event codes sorted by time, codes[from] to codes[to - 1], and its breakdown value. */
  add(codes: ArrayLike<number>, from: number, to: number, group: string | null): void {
    const first = this.walk.run(codes, from, to);
    if (first[0] === NONE) return;
    this.total.add(first);
    if (!this.spec.breakdown) return;
    let counts = this.byGroup.get(group);
    if (!counts) this.byGroup.set(group, (counts = new ReachCounts(this.spec.steps.length)));
    counts.add(first);
  }

  counts(): FunnelCounts {
    return {
      evaluatedIn: this.evaluatedIn,
      total: this.total.counts(),
      groups: this.spec.breakdown
        ? rankGroups(
            [...this.byGroup].map(([value, counts]) => ({ value, steps: counts.counts() })),
            FUNNEL_LIMITS.maxGroups,
          )
        : [],
    };
  }
}

/** The median as DuckDB's quantile_cont and ClickHouse's quantileExactInclusive take it (interpolated). */
export function medianOf(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  const xs = Float64Array.from(values).sort(); // a typed array sorts numerically, and fast
  const pos = (xs.length - 1) / 2;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return xs[lo]! + (xs[hi]! - xs[lo]!) * (pos - lo);
}

function roundMs(v: number | null): number | null {
  return v === null || !Number.isFinite(v) ? null : Math.round(v);
}

/**
 * The unknown (null) group last, whatever its count, then most entered first, then by value; at
 * most `limit` groups. Null last, as docs/analytics.md promised (issue 43): it is what no value
 * could be read for, not a value to rank among the others, and a reader looks for it at the end.
 */
export function rankGroups(groups: FunnelCounts['groups'], limit: number): FunnelCounts['groups'] {
  return [...groups]
    .sort(
      (a, b) =>
        Number(a.value === null) - Number(b.value === null) ||
        (b.steps[0]?.entered ?? 0) - (a.steps[0]?.entered ?? 0) ||
        compareValues(a.value, b.value),
    )
    .slice(0, limit);
}

function compareValues(a: string | null, b: string | null): number {
  if (a === b || a === null || b === null) return 0;
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

/** Rows sorted by unit, then time: json-logic-js decides each event's steps, then each unit is tallied. */
export function tallyInTypeScript(
  rows: Array<Record<string, unknown>>,
  spec: FunnelSpec,
  groupOf: Map<string, string | null> | null,
): FunnelCounts {
  const tally = new FunnelTally(spec, 'typescript');
  let unit: string | null = null;
  let codes: number[] = [];
  const finish = () => {
    if (unit !== null) tally.add(codes, 0, codes.length, groupOf?.get(unit) ?? null);
  };
  for (const r of rows) {
    const u = toStr(r.funnel_unit);
    if (u !== unit) {
      finish();
      unit = u;
      codes = [];
    }
    const e = rowToEnrichedEvent(r);
    const mask = spec.steps.reduce((m, s, k) => (s.matches(e) ? m | (1 << k) : m), 0);
    if (mask) codes.push(eventCode(e.timestamp - spec.window.start, mask));
  }
  finish();
  return tally.counts();
}
