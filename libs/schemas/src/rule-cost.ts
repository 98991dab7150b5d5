// An upper bound of what evaluating a JSONLogic expression can cost, computed before it is
// saved (issue 13): a rule that maps over 300 items six levels deep, or a reduce that doubles
// its accumulator 40 times, is 3.7 KB of JSON and would freeze the classifier. Pure code, like
// rule-logic.ts: it never runs the logic.

/**
 * What one evaluation of one rule may spend. `steps` counts json-logic-js `apply` calls (one per
 * node visited, per item for map/filter/reduce/all/some/none); `items` bounds any array a step
 * builds; `chars` any string. A real rule takes tens of steps; 20,000 is a few milliseconds.
 * libs/rules meters evaluation against the same numbers, so a rule saved before this check
 * existed still cannot freeze a consumer.
 */
export const RULE_EVALUATION_BUDGET = { steps: 20_000, items: 10_000, chars: 64 * 1024 } as const;

/** Length assumed for an array read from the data (`var`): a session's lists are short. */
const DATA_ARRAY_ITEMS = 100;

/** Work the bound itself may do; logic that needs more to bound is refused as too complex. */
const MAX_ANALYSIS_WORK = 200_000;

const ITERATING = new Set(['map', 'filter', 'all', 'some', 'none']);

interface Cost {
  steps: number;
  /** Upper bound of items when the value is an array (0 for a scalar). */
  items: number;
  /** Upper bound of items of the value's items, when they are arrays. */
  inner: number;
}

/** Sizes of what `var` names inside an iterating operation's body or a reduce. */
interface Scope {
  data: number;
  dataInner: number;
  accumulator?: number;
}

export interface RuleCostIssue {
  path: Array<string | number>;
  msg: string;
  type: string;
}

class Exceeded extends Error {
  constructor(
    readonly path: Array<string | number>,
    readonly why: string,
  ) {
    super(why);
  }
}

const isOperation = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v) && Object.keys(v).length === 1;

class CostBound {
  private work = 0;

  of(node: unknown, path: Array<string | number>, scope: Scope): Cost {
    if (++this.work > MAX_ANALYSIS_WORK) throw new Exceeded([], 'Logic is too complex to bound its cost');
    if (Array.isArray(node)) return this.list(node, path, scope);
    if (!isOperation(node)) return { steps: 1, items: 0, inner: 0 };
    const op = Object.keys(node)[0]!;
    const raw = node[op];
    const args = Array.isArray(raw) ? raw : raw === undefined ? [] : [raw];
    const at = [...path, op];
    const cost = ITERATING.has(op)
      ? this.iterate(op, args, at, scope)
      : op === 'reduce'
        ? this.reduce(args, at, scope)
        : op === 'var'
          ? this.variable(args, at, scope)
          : this.plain(op, args, at, scope);
    return this.check(cost, at);
  }

  private check(cost: Cost, path: Array<string | number>): Cost {
    const b = RULE_EVALUATION_BUDGET;
    if (cost.steps > b.steps)
      throw new Exceeded(
        path,
        `Logic may take more than ${b.steps} steps to evaluate (an upper bound from its lists' lengths, ${DATA_ARRAY_ITEMS} assumed for lists in the data)`,
      );
    if (cost.items > b.items) throw new Exceeded(path, `Logic may build a list of more than ${b.items} items`);
    return cost;
  }

  private list(items: unknown[], path: Array<string | number>, scope: Scope): Cost {
    let steps = 1;
    let inner = 0;
    items.forEach((item, i) => {
      const c = this.of(item, [...path, i], scope);
      steps += c.steps;
      inner = Math.max(inner, c.items);
    });
    return this.check({ steps, items: items.length, inner }, path);
  }

  private variable(args: unknown[], path: Array<string | number>, scope: Scope): Cost {
    const steps = 1 + args.reduce<number>((n, a, i) => n + this.of(a, [...path, i], scope).steps, 0);
    const name = args[0];
    if (scope.accumulator !== undefined && name === 'accumulator')
      return { steps, items: scope.accumulator, inner: DATA_ARRAY_ITEMS };
    if (name === '' || name === null || name === undefined || (scope.accumulator !== undefined && name === 'current'))
      return { steps, items: scope.data, inner: scope.dataInner };
    return { steps, items: DATA_ARRAY_ITEMS, inner: DATA_ARRAY_ITEMS };
  }

  private iterate(op: string, args: unknown[], path: Array<string | number>, scope: Scope): Cost {
    const input = this.of(args[0], [...path, 0], scope);
    const body = this.of(args[1], [...path, 1], { data: input.inner, dataInner: DATA_ARRAY_ITEMS });
    const steps = 1 + input.steps + input.items * body.steps;
    if (op === 'map') return { steps, items: input.items, inner: body.items };
    if (op === 'filter') return { steps, items: input.items, inner: input.inner };
    return { steps, items: 0, inner: 0 };
  }

  /** The accumulator can grow every round (`merge` of itself doubles it): follow it round by round. */
  private reduce(args: unknown[], path: Array<string | number>, scope: Scope): Cost {
    const input = this.of(args[0], [...path, 0], scope);
    const initial = args[2] === undefined ? { steps: 0, items: 0, inner: 0 } : this.of(args[2], [...path, 2], scope);
    let steps = 1 + input.steps + initial.steps;
    let accumulator = initial.items;
    for (let round = 0; round < input.items; round++) {
      const body = this.check(
        this.of(args[1], [...path, 1], { data: input.inner, dataInner: DATA_ARRAY_ITEMS, accumulator }),
        [...path, 1],
      );
      steps += body.steps;
      this.check({ steps, items: body.items, inner: 0 }, path);
      if (body.items === accumulator) {
        steps += (input.items - round - 1) * body.steps; // steady: every later round costs the same
        break;
      }
      accumulator = body.items;
    }
    return { steps, items: accumulator, inner: DATA_ARRAY_ITEMS };
  }

  private plain(op: string, args: unknown[], path: Array<string | number>, scope: Scope): Cost {
    let steps = 1;
    let items = 0;
    let inner = 0;
    args.forEach((arg, i) => {
      const c = this.of(arg, [...path, i], scope);
      steps += c.steps;
      // merge flattens one level: an array argument adds its items, anything else one item.
      items = op === 'merge' ? items + Math.max(c.items, 1) : Math.max(items, c.items);
      inner = Math.max(inner, c.inner);
    });
    return { steps, items, inner };
  }
}

/**
 * The issue when `logic` could cost more than RULE_EVALUATION_BUDGET for any session, with the
 * path of the first node whose bound passes it; null when it fits. Call it on logic that passed
 * the structural checks (rule-logic.ts), which bound its depth and node count.
 */
export function ruleCostIssue(logic: unknown): RuleCostIssue | null {
  try {
    new CostBound().of(logic, [], { data: DATA_ARRAY_ITEMS, dataInner: DATA_ARRAY_ITEMS });
    return null;
  } catch (err) {
    if (!(err instanceof Exceeded)) throw err;
    return { path: err.path, msg: err.why, type: 'value_error' };
  }
}
