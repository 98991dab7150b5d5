// Runs a funnel (issue 18) and shapes the store's counts into the API's answer: names, the
// conversion ratios and which evaluation path answered.
import { errors } from '@spoor/http';
import { compileFunnelStep, funnelStepLogic } from '@spoor/rules';
import type { FunnelBreakdown, FunnelStepInput, ProjectRecord, z, FunnelResultSchema } from '@spoor/schemas';
import { requireRawFieldsReadable } from './project-scope.js';
import { FunnelTooLargeError, type FunnelStepCount, type Store, type Window } from '@spoor/store';

export interface FunnelDefinition {
  steps: FunnelStepInput[];
  unit: 'session' | 'visitor';
  order: 'strict' | 'any';
  conversion_window_ms: number;
  breakdown?: FunnelBreakdown | null | undefined;
}

type FunnelResult = z.input<typeof FunnelResultSchema>;

const ratio = (a: number, b: number | undefined) => (b === undefined || b === 0 ? null : a / b);

function stepResults(names: string[], counts: FunnelStepCount[]): FunnelResult['steps'] {
  return counts.map((c, k) => ({
    name: names[k]!,
    entered: c.entered,
    converted: k + 1 < counts.length ? counts[k + 1]!.entered : null,
    conversion_from_previous: ratio(c.entered, k === 0 ? c.entered : counts[k - 1]!.entered),
    conversion_from_first: ratio(c.entered, counts[0]!.entered),
    median_ms_to_next: c.medianMsToNext,
  }));
}

/** A funnel whose steps read raw fields of an unverified domain answers 403 (issue 42, the DNS gate). */
export function requireFunnelReadable(p: ProjectRecord, steps: FunnelStepInput[]): void {
  requireRawFieldsReadable(p, 'The funnel', ...steps.map(funnelStepLogic));
}

export async function answerFunnel(
  store: Store,
  p: ProjectRecord,
  def: FunnelDefinition,
  window: Window,
): Promise<FunnelResult> {
  requireFunnelReadable(p, def.steps);
  const steps = def.steps.map(compileFunnelStep);
  const names = steps.map((s) => s.name);
  const breakdown = def.breakdown ?? null;
  let counts;
  try {
    counts = await store.funnels.query(p.project_id, {
      window,
      steps,
      unit: def.unit,
      order: def.order,
      conversionWindowMs: def.conversion_window_ms,
      breakdown,
    });
  } catch (err) {
    if (!(err instanceof FunnelTooLargeError)) throw err;
    throw errors.validation([
      {
        loc: ['body', 'steps'],
        msg: `${err.message}; narrow the window, or write those steps in a form SQL evaluates (docs/analytics.md)`,
        type: 'value_error',
      },
    ]);
  }
  return {
    origin: p.origin,
    project: p.project,
    window_start: window.start,
    window_end: window.end,
    unit: def.unit,
    order: def.order,
    conversion_window_ms: def.conversion_window_ms,
    evaluated_in: counts.evaluatedIn,
    step_evaluation: steps.map((s) => (s.predicate === null ? 'typescript' : 'sql')),
    steps: stepResults(names, counts.total),
    breakdown:
      breakdown === null
        ? null
        : {
            property: breakdown,
            groups: counts.groups.map((g) => ({ value: g.value, steps: stepResults(names, g.steps) })),
          },
  };
}
