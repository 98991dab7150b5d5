import type { RuleDefinitionInput } from '@spoor/schemas';
import { compileRules, type RuleSet } from './rule-set.js';
import type { Meter } from './metered-logic.js';
import { runSliced, SLICE_MS } from './time-slices.js';

export interface RuleTestResultItem {
  session_id: string | null;
  matched: string[];
  labels: string[];
  tags: string[];
  attributes: Record<string, unknown>;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Steps one test request may spend in all (sessions × rules × each evaluation): a fraction of a
 * second of one core. Past it, or when one evaluation passes its own budget, the request is
 * refused instead of answered with silently unmatched rules.
 */
export const RULE_TEST_TOTAL_STEPS = 500_000;

/** A test that would cost more than its budget: the route answers 422 with this message. */
export class RuleTestBudgetError extends Error {}

const tooManySteps = () =>
  new RuleTestBudgetError(
    `The test needs more than ${RULE_TEST_TOTAL_STEPS} evaluation steps; send fewer sessions or simpler rules`,
  );

/** Stops the test as soon as its answer is known to be a 422, rather than after every session. */
function checkBudget(meter: Meter, set: RuleSet): void {
  if (meter.steps <= 0) throw tooManySteps();
  const heavy = [...set.overBudget.keys()];
  if (heavy.length > 0)
    throw new RuleTestBudgetError(
      `Rule ${heavy.join(', ')} passed the evaluation budget on the sessions given; simplify its logic`,
    );
}

/**
 * A session's events, oldest first. Reading them costs a step each, and sorting them (when they
 * are not in order already) a step per comparison, so that a body of a million events is refused
 * by the budget instead of sorted on the event loop.
 */
function eventsInOrder(session: Record<string, unknown>, meter: Meter): Array<Record<string, unknown>> {
  if (!Array.isArray(session.events)) return [];
  const events = session.events.filter(isObject);
  const at = (e: Record<string, unknown>) => Number(e.timestamp) || 0;
  let sorted = true;
  for (let i = 1; i < events.length && sorted; i++) sorted = at(events[i - 1]!) <= at(events[i]!);
  const n = events.length;
  const cost = n + (sorted ? 0 : Math.ceil(n * Math.log2(n)));
  meter.steps -= cost;
  meter.spent += cost;
  if (meter.steps <= 0) throw tooManySteps();
  if (sorted) return events;
  return events
    .map((e, i) => ({ e, i }))
    .sort((a, b) => at(a.e) - at(b.e) || a.i - b.i)
    .map(({ e }) => e);
}

function* testing(
  sessions: Array<Record<string, unknown>>,
  set: RuleSet,
  meter: Meter,
): Generator<void, RuleTestResultItem[]> {
  const results: RuleTestResultItem[] = [];
  for (const session of sessions) {
    checkBudget(meter, set);
    const attributes: Record<string, unknown> = isObject(session.attributes) ? { ...session.attributes } : {};
    for (const e of eventsInOrder(session, meter)) {
      yield* set.extracting(e, attributes);
      checkBudget(meter, set);
    }
    const verdict = yield* set.classifying({ ...session, attributes });
    results.push({
      session_id: typeof session.session_id === 'string' ? session.session_id : null,
      matched: verdict.rule_ids,
      labels: verdict.labels,
      tags: [...new Set(verdict.tags.map((t) => t.tag))],
      attributes,
    });
  }
  checkBudget(meter, set);
  return results;
}

/**
 * POST /v1/rules/test: evaluates rule definitions against session objects, writing nothing. A
 * session's `events` (if any) go through the attribute rules first, oldest first, so that
 * classification rules see the attributes they set.
 *
 * Runs the test in time slices (time-slices.ts): the evaluations of one request, up to
 * RULE_TEST_TOTAL_STEPS, never hold the event loop more than a slice at a time (issue 42).
 * Rejects with RuleTestBudgetError when the test passes its budget.
 */
export async function testRules(
  sessions: Array<Record<string, unknown>>,
  rules: RuleDefinitionInput[],
  sliceMs = SLICE_MS,
): Promise<{ results: RuleTestResultItem[] }> {
  const meter: Meter = { steps: RULE_TEST_TOTAL_STEPS, spent: 0 };
  const set = compileRules(
    rules.map((r) => ({
      rule_id: r.rule_id,
      kind: r.kind,
      logic: r.logic,
      tags: r.tags,
      label: r.label ?? null,
      attribute: r.attribute ?? null,
      value: r.value ?? null,
      enabled: r.enabled,
    })),
    meter,
    true, // RuleDefinitionInput: parsed with RuleDefinition, whose refinements ran ruleLogicIssues
  );
  return { results: await runSliced(testing(sessions, set, meter), sliceMs) };
}
