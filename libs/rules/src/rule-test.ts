import type { RuleDefinitionInput } from '@spoor/schemas';
import { compileRules } from './rule-set.js';
import type { Meter } from './metered-logic.js';

export interface RuleTestResultItem {
  session_id: string | null;
  matched: string[];
  labels: string[];
  tags: string[];
  attributes: Record<string, unknown>;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * POST /v1/rules/test: evaluates rule definitions against session objects, writing nothing. A
 * session's `events` (if any) go through the attribute rules first, oldest first, so that
 * classification rules see the attributes they set.
 */
/**
 * Steps one test request may spend in all (sessions × rules × each evaluation): a fraction of a
 * second of one core. Past it, or when one evaluation passes its own budget, the request is
 * refused instead of answered with silently unmatched rules.
 */
export const RULE_TEST_TOTAL_STEPS = 500_000;

/** A test that would cost more than its budget: the route answers 422 with this message. */
export class RuleTestBudgetError extends Error {}

export function testRules(
  sessions: Array<Record<string, unknown>>,
  rules: RuleDefinitionInput[],
): { results: RuleTestResultItem[] } {
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
  );
  const results = sessions.map((session) => {
    if (meter.steps <= 0)
      throw new RuleTestBudgetError(
        `The test needs more than ${RULE_TEST_TOTAL_STEPS} evaluation steps; send fewer sessions or simpler rules`,
      );
    const attributes: Record<string, unknown> = isObject(session.attributes) ? { ...session.attributes } : {};
    const events = Array.isArray(session.events) ? session.events.filter(isObject) : [];
    const ordered = events
      .map((e, i) => ({ e, i }))
      .sort((a, b) => (Number(a.e.timestamp) || 0) - (Number(b.e.timestamp) || 0) || a.i - b.i);
    for (const { e } of ordered) set.extract(e, attributes);
    const verdict = set.classify({ ...session, attributes });
    return {
      session_id: typeof session.session_id === 'string' ? session.session_id : null,
      matched: verdict.rule_ids,
      labels: verdict.labels,
      tags: [...new Set(verdict.tags.map((t) => t.tag))],
      attributes,
    };
  });
  if (meter.steps <= 0)
    throw new RuleTestBudgetError(
      `The test needs more than ${RULE_TEST_TOTAL_STEPS} evaluation steps; send fewer sessions or simpler rules`,
    );
  const heavy = [...set.overBudget.keys()];
  if (heavy.length > 0)
    throw new RuleTestBudgetError(
      `Rule ${heavy.join(', ')} passed the evaluation budget on the sessions given; simplify its logic`,
    );
  return { results };
}
