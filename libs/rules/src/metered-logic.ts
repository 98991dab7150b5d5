// JSONLogic evaluation with a meter (issues 13 and 42): json-logic-js 2.0.5's semantics, operator
// by operator, but every node visited costs a step and every operator pays for the work its
// operands make it do. json-logic-js's `in` is `indexOf` over the whole list, `merge` copies
// lists, `cat` and comparisons convert lists to strings; wrapping its `apply` counted each as one
// step, so an `or` of 450 `in`s over 1,500-item lists held the event loop 2.3 s (issue 42).
import { RULE_EVALUATION_BUDGET } from '@spoor/schemas';
import { OPERATIONS, type OperationContext } from './metered-operations.js';

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

/** JSONLogic truthiness (jsonlogic.com/truthy): an empty list is false. */
export function truthy(value: unknown): boolean {
  return Array.isArray(value) && value.length === 0 ? false : !!value;
}

const isLogic = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v) && Object.keys(v).length === 1;

const ITERATING = new Set(['filter', 'map', 'reduce', 'all', 'none', 'some']);

class Evaluation implements OperationContext {
  constructor(private readonly meter: Meter) {}

  /** Spends `n` steps; past the budget, throws (the steps spent include the one that passed it). */
  charge(n: number): void {
    if (n <= 0) return;
    this.meter.spent += n;
    this.meter.steps -= n;
    if (this.meter.steps < 0) throw new EvaluationBudgetError('steps');
  }

  left(): number {
    return this.meter.steps;
  }

  apply(logic: unknown, data: unknown): unknown {
    this.charge(1);
    const result = this.node(logic, data);
    if (Array.isArray(result) && result.length > RULE_EVALUATION_BUDGET.items) throw new EvaluationBudgetError('items');
    if (typeof result === 'string' && result.length > RULE_EVALUATION_BUDGET.chars)
      throw new EvaluationBudgetError('chars');
    return result;
  }

  private node(logic: unknown, data: unknown): unknown {
    if (Array.isArray(logic)) return logic.map((l) => this.apply(l, data));
    if (!isLogic(logic)) return logic;
    const op = Object.keys(logic)[0]!;
    const raw = logic[op];
    const values = Array.isArray(raw) ? raw : [raw];
    if (op === 'if' || op === '?:') return this.choose(values, data);
    if (op === 'and' || op === 'or') return this.shortCircuit(op, values, data);
    if (ITERATING.has(op)) return this.iterate(op, values, data);
    const operation = Object.prototype.hasOwnProperty.call(OPERATIONS, op) ? OPERATIONS[op] : undefined;
    // json-logic-js also resolves dotted names into its table and has `log`; validation refuses both.
    if (!operation) throw new Error(`Unrecognized operation ${op}`);
    const args = values.map((v) => this.apply(v, data));
    return operation(this, data, args);
  }

  private choose(values: unknown[], data: unknown): unknown {
    let i: number;
    for (i = 0; i < values.length - 1; i += 2) {
      if (truthy(this.apply(values[i], data))) return this.apply(values[i + 1], data);
    }
    if (values.length === i + 1) return this.apply(values[i], data);
    return null;
  }

  private shortCircuit(op: 'and' | 'or', values: unknown[], data: unknown): unknown {
    let current: unknown;
    for (const value of values) {
      current = this.apply(value, data);
      if (truthy(current) === (op === 'or')) return current;
    }
    return current;
  }

  /** Every item costs at least the step of applying the body to it. */
  private iterate(op: string, values: unknown[], data: unknown): unknown {
    const scoped = this.apply(values[0], data);
    const body = values[1];
    if (op === 'reduce') {
      const initial = typeof values[2] !== 'undefined' ? this.apply(values[2], data) : null;
      if (!Array.isArray(scoped)) return initial;
      return scoped.reduce(
        (accumulator: unknown, current: unknown) => this.apply(body, { current, accumulator }),
        initial,
      );
    }
    if (op === 'filter') return Array.isArray(scoped) ? scoped.filter((d) => truthy(this.apply(body, d))) : [];
    if (op === 'map') return Array.isArray(scoped) ? scoped.map((d) => this.apply(body, d)) : [];
    if (!Array.isArray(scoped) || scoped.length === 0) return op === 'none';
    if (op === 'all') return scoped.every((d) => truthy(this.apply(body, d)));
    if (op === 'some') return scoped.some((d) => truthy(this.apply(body, d)));
    return !scoped.some((d) => truthy(this.apply(body, d))); // none
  }
}

/**
 * Evaluates `logic` on `data` within RULE_EVALUATION_BUDGET (issue 13): nothing saved, even
 * before the save-time bound existed, can hold a consumer's event loop. Throws
 * EvaluationBudgetError past the budget. `shared` adds the steps to a caller's running total
 * and caps this evaluation at the steps it has left.
 */
export function applyWithin(logic: unknown, data: unknown, shared?: Meter): unknown {
  const meter: Meter = { steps: Math.min(RULE_EVALUATION_BUDGET.steps, shared?.steps ?? Infinity), spent: 0 };
  try {
    return new Evaluation(meter).apply(logic, data);
  } finally {
    if (shared) {
      shared.steps -= meter.spent;
      shared.spent += meter.spent;
    }
  }
}
