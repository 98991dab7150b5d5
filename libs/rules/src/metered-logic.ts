import jsonLogic from 'json-logic-js';
import { RULE_EVALUATION_BUDGET } from '@spoor/schemas';

/** An evaluation stopped because it passed its budget: the rule counts as not matched. */
export class EvaluationBudgetError extends Error {
  constructor(readonly what: 'steps' | 'items' | 'chars') {
    super(`rule evaluation passed its ${what} budget`);
    this.name = 'EvaluationBudgetError';
  }
}

export interface Meter {
  /** Steps left for this evaluation. */
  steps: number;
  /** Steps spent so far; a caller may share one meter across evaluations for a total budget. */
  spent: number;
}

let current: Meter | null = null;
const original = jsonLogic.apply;

/**
 * json-logic-js recurses through the module's own `jsonLogic.apply` (map, filter, reduce, all,
 * some, none and every operator's arguments call it), so replacing that property meters every
 * node one evaluation visits. Outside `applyWithin` the wrapper passes straight through.
 */
function meteredApply(logic: unknown, data: unknown): unknown {
  const meter = current;
  if (meter === null) return original(logic as jsonLogic.RulesLogic, data);
  meter.spent++;
  if (--meter.steps < 0) throw new EvaluationBudgetError('steps');
  const result = original(logic as jsonLogic.RulesLogic, data);
  if (Array.isArray(result) && result.length > RULE_EVALUATION_BUDGET.items) throw new EvaluationBudgetError('items');
  if (typeof result === 'string' && result.length > RULE_EVALUATION_BUDGET.chars)
    throw new EvaluationBudgetError('chars');
  return result;
}
(jsonLogic as { apply: unknown }).apply = meteredApply;

/**
 * Evaluates `logic` on `data` within RULE_EVALUATION_BUDGET (issue 13): nothing saved, even
 * before the save-time bound existed, can hold a consumer's event loop. Throws
 * EvaluationBudgetError past the budget. `shared` adds the steps to a caller's running total.
 */
export function applyWithin(logic: unknown, data: unknown, shared?: Meter): unknown {
  const meter: Meter = { steps: Math.min(RULE_EVALUATION_BUDGET.steps, shared?.steps ?? Infinity), spent: 0 };
  const outer = current;
  current = meter;
  try {
    return meteredApply(logic, data);
  } finally {
    current = outer;
    if (shared) {
      shared.steps -= meter.spent;
      shared.spent += meter.spent;
    }
  }
}
