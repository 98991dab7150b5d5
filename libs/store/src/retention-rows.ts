// Shapes the engines' retention rows (c: cohort period index, k: periods after it, n: visitors).
import { toInt } from './column-values.js';
import type { RetentionCohort, RetentionSpec } from './funnel-query.js';

export function periodsOf(spec: RetentionSpec): number {
  if (!Number.isSafeInteger(spec.periodMs) || spec.periodMs < 1) throw new RangeError(`bad period: ${spec.periodMs}`);
  return Math.ceil((spec.window.end - spec.window.start) / spec.periodMs);
}

/** Every period of the window is a cohort (size 0 when nobody was first seen in it). */
export function toCohorts(spec: RetentionSpec, rows: Array<Record<string, unknown>>): RetentionCohort[] {
  const periods = periodsOf(spec);
  const cohorts: RetentionCohort[] = Array.from({ length: periods }, (_, c) => ({
    start: spec.window.start + c * spec.periodMs,
    size: 0,
    returning: new Array(periods - c).fill(0),
  }));
  for (const r of rows) {
    const c = toInt(r.c);
    const k = toInt(r.k);
    const cohort = cohorts[c];
    if (!cohort || k < 0 || k >= cohort.returning.length) continue;
    cohort.returning[k] = toInt(r.n);
    if (k === 0) cohort.size = toInt(r.n);
  }
  return cohorts;
}
