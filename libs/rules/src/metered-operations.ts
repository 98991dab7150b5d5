// json-logic-js 2.0.5's operator table (logic.js, `operations`), each operator charging the work
// its operands make it do before doing it (issue 42): one step per list item it scans, copies or
// converts, and one per CHARS_PER_STEP characters of a string it reads, compares or converts.
// The bodies are json-logic-js's, so answers stay the same (metered-logic.test.ts compares them).

/** What an operator may ask of the evaluation running it. */
export interface OperationContext {
  /** Spends steps; throws EvaluationBudgetError past the budget. */
  charge(steps: number): void;
  /** Steps left: a cost computation stops walking once it knows the budget is passed. */
  left(): number;
  /** Evaluates logic (a step per node), as json-logic-js's operators call its `apply`. */
  apply(logic: unknown, data: unknown): unknown;
}
type Operation = (ctx: OperationContext, data: unknown, args: unknown[]) => unknown;

/**
 * Characters one step stands for. A step is about one node visit (~0.1–0.3 µs); scanning,
 * comparing or copying 16 characters costs less than that, a list item about as much.
 */
export const CHARS_PER_STEP = 16;

const chars = (s: string) => Math.ceil(s.length / CHARS_PER_STEP);

/**
 * Steps to turn `v` into a string or number as JavaScript does for `==`, `<`, `+`, `cat`,
 * `String()`: a string is read, a list joined item by item (nested lists too); numbers, booleans,
 * null and objects ("[object Object]") are constant. Stops counting past `cap`.
 */
export function conversionCost(v: unknown, cap: number): number {
  if (typeof v === 'string') return chars(v);
  if (!Array.isArray(v)) return 0;
  let cost = v.length;
  for (let i = 0; i < v.length && cost <= cap; i++) cost += conversionCost(v[i], cap - cost);
  return cost;
}

const convert = (ctx: OperationContext, values: ArrayLike<unknown>): void => {
  let cost = 0;
  for (let i = 0; i < values.length; i++) cost += conversionCost(values[i], ctx.left() - cost);
  ctx.charge(cost);
};

/** `==`, `!=`: two objects (lists) compare by reference, null only equals undefined; else conversion. */
function looseCost(ctx: OperationContext, a: unknown, b: unknown): void {
  if (a === null || a === undefined || b === null || b === undefined) return;
  if (typeof a === 'object' && typeof b === 'object') return;
  convert(ctx, [a, b]);
}

/** `===`, `!==`: only two strings are compared character by character. */
function strictCost(ctx: OperationContext, a: unknown, b: unknown): void {
  if (typeof a === 'string' && typeof b === 'string')
    ctx.charge(Math.ceil(Math.min(a.length, b.length) / CHARS_PER_STEP));
}

/** `in`: indexOf over a list (an item per step, more for strings like the needle) or a string. */
function inCost(ctx: OperationContext, a: unknown, b: unknown): void {
  if (typeof b === 'string') return convert(ctx, [a, b]);
  if (!Array.isArray(b)) return;
  ctx.charge(b.length);
  if (typeof a !== 'string' || a.length <= CHARS_PER_STEP) return;
  let same = 0; // strict equality reads the characters of strings as long as the needle
  for (const item of b) if (typeof item === 'string' && item.length === a.length) same++;
  ctx.charge(same * chars(a));
}

/** `merge`: json-logic-js concatenates argument by argument, copying the growing list each time. */
function mergeCost(ctx: OperationContext, args: unknown[]): void {
  let length = 0;
  let cost = 0;
  for (const arg of args) {
    length += Array.isArray(arg) ? arg.length : 1;
    cost += length;
    if (cost > ctx.left()) break;
  }
  ctx.charge(cost);
}

const relational =
  (test: (a: unknown, b: unknown, c: unknown) => boolean): Operation =>
  (ctx, _data, args) => {
    convert(ctx, args.slice(0, 3));
    return test(args[0], args[1], args[2]);
  };
const arithmetic =
  (f: (...args: unknown[]) => unknown): Operation =>
  (ctx, _data, args) => {
    convert(ctx, args);
    return f(...args);
  };
// json-logic-js's operators are JavaScript's, coercions included: operands typed `any` below.
export const OPERATIONS: Record<string, Operation> = {
  '==': (ctx, _d, [a, b]) => (looseCost(ctx, a, b), (a as any) == b),
  '===': (ctx, _d, [a, b]) => (strictCost(ctx, a, b), a === b),
  '!=': (ctx, _d, [a, b]) => (looseCost(ctx, a, b), (a as any) != b),
  '!==': (ctx, _d, [a, b]) => (strictCost(ctx, a, b), a !== b),
  '>': relational((a: any, b: any) => a > b),
  '>=': relational((a: any, b: any) => a >= b),
  '<': relational((a: any, b: any, c: any) => (c === undefined ? a < b : a < b && b < c)),
  '<=': relational((a: any, b: any, c: any) => (c === undefined ? a <= b : a <= b && b <= c)),
  '!!': (_ctx, _d, [a]) => truthyValue(a),
  '!': (_ctx, _d, [a]) => !truthyValue(a),
  '%': arithmetic((a: any, b: any) => a % b),
  in: (ctx, _d, [a, b]) => {
    inCost(ctx, a, b);
    if (!b || typeof (b as any).indexOf === 'undefined') return false;
    return (b as any).indexOf(a) !== -1;
  },
  cat: (ctx, _d, args) => (convert(ctx, args), Array.prototype.join.call(args, '')),
  substr: (ctx, _d, args) => {
    convert(ctx, args.slice(0, 3));
    const [source, start, end] = args as [unknown, any, any];
    if (end < 0) {
      const temp = String(source).substr(start); // JavaScript has no negative end: PHP's, as json-logic-js
      return temp.substr(0, temp.length + end);
    }
    return String(source).substr(start, end);
  },
  '+': arithmetic((...xs: any[]) => xs.reduce((a, b) => parseFloat(a) + parseFloat(b), 0)),
  '*': arithmetic((...xs: any[]) => xs.reduce((a, b) => parseFloat(a) * parseFloat(b))),
  '-': arithmetic((a: any, b: any) => (b === undefined ? -a : a - b)),
  '/': arithmetic((a: any, b: any) => a / b),
  min: arithmetic((...xs: any[]) => Math.min(...xs)),
  max: arithmetic((...xs: any[]) => Math.max(...xs)),
  merge: (ctx, _d, args) => (mergeCost(ctx, args), args.reduce<unknown[]>((a, b) => a.concat(b), [])),
  var: (ctx, data, [a, b]) => {
    const notFound = b === undefined ? null : b;
    if (typeof a === 'undefined' || a === '' || a === null) return data;
    convert(ctx, [a]);
    const path = String(a).split('.');
    ctx.charge(path.length);
    let value: any = data;
    for (const key of path) {
      if (value === null || value === undefined) return notFound;
      value = value[key];
      if (value === undefined) return notFound;
    }
    return value;
  },
  missing: (ctx, data, args) => {
    // One list argument, or the keys as arguments (json-logic-js); each key is a metered `var`.
    const keys = Array.isArray(args[0]) ? (args[0] as unknown[]) : args;
    const missing: unknown[] = [];
    for (const key of keys) {
      const value = ctx.apply({ var: key }, data);
      if (value === null || value === '') missing.push(key);
    }
    return missing;
  },
  missing_some: (ctx, data, [needCount, options]) => {
    // As json-logic-js: the options are applied as logic again (`{"missing": options}`).
    const areMissing = ctx.apply({ missing: options }, data) as unknown[];
    return (options as any).length - areMissing.length >= (needCount as any) ? [] : areMissing;
  },
};

function truthyValue(value: unknown): boolean {
  return Array.isArray(value) && value.length === 0 ? false : !!value;
}
