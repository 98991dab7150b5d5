// Validation of a JSONLogic expression before it is saved (DESIGN.md, Rules). Pure code, no
// json-logic-js: the schemas stay light and the check can never run the logic.
import { ruleCostIssue } from './rule-cost.js';

export interface RuleLogicIssue {
  /** Relative to the logic value: object keys and array indexes down to the fault. */
  path: Array<string | number>;
  msg: string;
  type: string;
}

export const RULE_LOGIC_LIMITS = { depth: 32, nodes: 2000, bytes: 32 * 1024 } as const;

/** Issues reported for one expression at most; past a few, more only bloat the 422 body. */
const MAX_ISSUES = 20;

/**
 * json-logic-js 2.0.5's operators with their argument counts, without `log` (writes to the
 * console). `>` and `>=` take two: json-logic-js ignores a third (only `<` and `<=` have the
 * between form), so a third would silently mean something else than it reads.
 */
const ARITY: Record<string, [number, number]> = {
  var: [0, 2],
  missing: [0, Infinity],
  missing_some: [2, 2],
  if: [1, Infinity],
  '?:': [1, Infinity],
  '==': [2, 2],
  '===': [2, 2],
  '!=': [2, 2],
  '!==': [2, 2],
  '!': [0, Infinity],
  '!!': [0, Infinity],
  or: [1, Infinity],
  and: [1, Infinity],
  '>': [2, 2],
  '>=': [2, 2],
  '<': [2, 3],
  '<=': [2, 3],
  max: [0, Infinity],
  min: [0, Infinity],
  '+': [0, Infinity],
  '-': [1, 2],
  '*': [1, Infinity],
  '/': [2, 2],
  '%': [2, 2],
  map: [2, 2],
  reduce: [2, 3],
  filter: [2, 2],
  all: [2, 2],
  none: [2, 2],
  some: [2, 2],
  merge: [0, Infinity],
  in: [2, 2],
  cat: [0, Infinity],
  substr: [2, 3],
};

/**
 * Path segments that json-logic-js's `var` (and `missing`, which calls it) would resolve on
 * Object.prototype rather than in the data: `data[segment]` reads inherited properties. The
 * list is Object.prototype's own property names plus `prototype`, written out so that the
 * check does not depend on the runtime.
 */
const FORBIDDEN_SEGMENTS = new Set([
  '__proto__',
  'prototype',
  'constructor',
  'hasOwnProperty',
  'isPrototypeOf',
  'propertyIsEnumerable',
  'toString',
  'toLocaleString',
  'valueOf',
  '__defineGetter__',
  '__defineSetter__',
  '__lookupGetter__',
  '__lookupSetter__',
]);

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * A data path must be a literal, so that it can be checked here: a computed one (`{"var":
 * {"cat": ["__pro", "to__"]}}`) could name anything at run time.
 */
function dataPathFault(op: string, path: unknown): string | null {
  if (path === null || path === undefined || typeof path === 'number') return null;
  if (typeof path !== 'string') return `${op} takes a literal path (a string or a number)`;
  for (const segment of path.split('.'))
    if (FORBIDDEN_SEGMENTS.has(segment)) return `${op} path segment '${segment}' is not allowed`;
  return null;
}

/** The literal keys of `missing` / `missing_some` that reach into prototypes (computed keys only answer presence). */
function missingKeysFault(op: string, args: unknown[]): string | null {
  const keys = op === 'missing_some' ? args[1] : args.length === 1 && Array.isArray(args[0]) ? args[0] : args;
  if (!Array.isArray(keys)) return null;
  for (const key of keys) {
    const fault = typeof key === 'string' ? dataPathFault(op, key) : null;
    if (fault) return fault;
  }
  return null;
}

function arityFault(op: string, count: number): string | null {
  const [min, max] = ARITY[op]!;
  if (count >= min && count <= max) return null;
  const want = min === max ? `${min}` : max === Infinity ? `at least ${min}` : `${min} to ${max}`;
  const one = min === 1 && (max === 1 || max === Infinity);
  return `'${op}' takes ${want} argument${one ? '' : 's'}, got ${count}`;
}

/** The fault of one operation's head (key, operator, arity, paths), or null when its arguments are worth walking. */
function operationFault(node: Record<string, unknown>): { msg: string; atOperator: boolean } | null {
  const keys = Object.keys(node);
  if (keys.length !== 1) {
    const got = keys.length === 0 ? 'none' : keys.map((k) => `'${k}'`).join(', ');
    return { msg: `An operation is an object with exactly one key (the operator); got ${got}`, atOperator: false };
  }
  const op = keys[0]!;
  if (!Object.prototype.hasOwnProperty.call(ARITY, op)) return { msg: `Unknown operator '${op}'`, atOperator: false };
  const raw = node[op];
  // json-logic-js reads a non-array argument as the only one (`{"var": "x"}`).
  const args = Array.isArray(raw) ? raw : raw === undefined ? [] : [raw];
  const fault =
    arityFault(op, args.length) ??
    (op === 'var' ? dataPathFault(op, args[0]) : null) ??
    (op.startsWith('missing') ? missingKeysFault(op, args) : null);
  return fault ? { msg: fault, atOperator: true } : null;
}

class LogicWalker {
  readonly issues: RuleLogicIssue[] = [];
  private nodes = 0;
  /** A depth or node-count limit was hit: the walk stopped short. */
  stopped = false;

  walk(node: unknown, path: Array<string | number>, depth: number): void {
    if (this.stopped || this.issues.length >= MAX_ISSUES) return;
    if (depth > RULE_LOGIC_LIMITS.depth)
      return this.stop(path, `Logic nests deeper than ${RULE_LOGIC_LIMITS.depth} levels`);
    if (++this.nodes > RULE_LOGIC_LIMITS.nodes)
      return this.stop([], `Logic has more than ${RULE_LOGIC_LIMITS.nodes} nodes`);
    if (Array.isArray(node)) return this.walkItems(node, path, depth);
    if (!isPlainObject(node)) return; // a literal
    const fault = operationFault(node);
    const op = Object.keys(node)[0]!;
    if (fault)
      return void this.issues.push({
        path: fault.atOperator ? [...path, op] : path,
        msg: fault.msg,
        type: 'value_error',
      });
    const raw = node[op];
    if (Array.isArray(raw)) this.walkItems(raw, [...path, op], depth);
    else this.walk(raw, [...path, op], depth + 1);
  }

  private walkItems(items: unknown[], path: Array<string | number>, depth: number): void {
    for (let i = 0; i < items.length && !this.stopped; i++) this.walk(items[i], [...path, i], depth + 1);
  }

  private stop(path: Array<string | number>, msg: string): void {
    this.issues.push({ path, msg, type: 'value_error' });
    this.stopped = true;
  }
}

/** UTF-8 length without Buffer (the schemas also load outside Node). A surrogate half counts 2, a pair 4. */
function utf8Length(text: string): number {
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    n += c < 0x80 ? 1 : c < 0x800 || (c >= 0xd800 && c <= 0xdfff) ? 2 : 3;
  }
  return n;
}

function jsonBytes(logic: unknown): number | null {
  try {
    const text = JSON.stringify(logic);
    return text === undefined ? 0 : utf8Length(text);
  } catch {
    return null; // a BigInt or a cycle: not JSON
  }
}

/**
 * Every fault of a JSONLogic expression; empty when it may be saved. Literals are valid logic
 * and an array is a list of expressions. Never throws: the walk stops at the depth and node
 * limits, and the size is measured only on what passed them (JSON.stringify recurses).
 */
export function ruleLogicIssues(logic: unknown): RuleLogicIssue[] {
  const walker = new LogicWalker();
  walker.walk(logic, [], 0);
  if (walker.stopped) return walker.issues;
  const bytes = jsonBytes(logic);
  if (bytes === null) return [{ path: [], msg: 'Logic is not JSON', type: 'value_error' }];
  if (bytes > RULE_LOGIC_LIMITS.bytes)
    return [
      { path: [], msg: `Logic is larger than ${RULE_LOGIC_LIMITS.bytes / 1024} KB of JSON`, type: 'value_error' },
    ];
  if (walker.issues.length > 0) return walker.issues;
  const cost = ruleCostIssue(logic);
  return cost ? [cost] : [];
}
