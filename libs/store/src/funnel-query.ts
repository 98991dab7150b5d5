// Funnels and retention over the enriched events (issue 18; docs/analytics.md). The engines
// answer in their own SQL; a step whose JSONLogic has no SQL form is decided in TypeScript by
// the caller's `matches` (json-logic-js, libs/rules), over the events SQL pre-filtered.
import type { EnrichedEvent, EventPredicate, FunnelBreakdown } from '@spoor/schemas';
import type { Window } from './store.js';

export interface FunnelStepSpec {
  /** The step's JSONLogic, which `matches` tests: what crosses to a store on another thread, which rebuilds `matches` from it. */
  logic: unknown;
  /** The step's SQL form, or null when only `matches` can decide it. */
  predicate: EventPredicate | null;
  /** Holds for every event the step matches: SQL's filter before TypeScript decides. */
  prefilter: EventPredicate;
  /** The step, exactly: json-logic-js on the event as an attribute rule sees it. */
  matches(event: EnrichedEvent): boolean;
}

export type FunnelUnit = 'session' | 'visitor';
export type FunnelOrder = 'strict' | 'any';

export interface FunnelSpec {
  window: Window;
  steps: FunnelStepSpec[];
  unit: FunnelUnit;
  order: FunnelOrder;
  conversionWindowMs: number;
  breakdown: FunnelBreakdown | null;
}

export interface FunnelStepCount {
  /** Units that reached the step. */
  entered: number;
  /** Median ms from first reaching this step to first reaching the next; null for the last step or when none went on. */
  medianMsToNext: number | null;
}

export interface FunnelCounts {
  evaluatedIn: 'sql' | 'typescript';
  total: FunnelStepCount[];
  /** Per breakdown value (null: unknown), most entered first, then by value; empty without a breakdown. */
  groups: Array<{ value: string | null; steps: FunnelStepCount[] }>;
}

export interface FunnelRepository {
  query(projectId: string, spec: FunnelSpec): Promise<FunnelCounts>;
}

/** A TypeScript-evaluated funnel would read more candidate events than this: narrow the window or the steps. */
export const MAX_TYPESCRIPT_FUNNEL_EVENTS = 500_000;

export class FunnelTooLargeError extends Error {
  constructor(readonly limit: number) {
    super(`more than ${limit.toLocaleString('en')} events in the window match the steps evaluated in TypeScript`);
    this.name = 'FunnelTooLargeError';
  }
}

export type RetentionPeriod = 'day' | 'week';

export interface RetentionSpec {
  /** Aligned to the period: start is a period's start. */
  window: Window;
  periodMs: number;
  /** Returning means an event of this action; null: any event. */
  action: string | null;
}

export interface RetentionCohort {
  start: number;
  size: number;
  /** Index k: visitors of the cohort with a returning event in the k-th period after it (0: size). */
  returning: number[];
}

export interface RetentionRepository {
  /**
   * Visitors (IP and user agent) by the period of their first event ever (before window end),
   * for the cohorts that start in the window; bots left out.
   */
  cohorts(projectId: string, spec: RetentionSpec): Promise<RetentionCohort[]>;
}
