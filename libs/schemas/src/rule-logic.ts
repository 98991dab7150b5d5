// Validation of a JSONLogic expression before it is saved (DESIGN.md, Rules). Pure code, no
// json-logic-js: the schemas stay light and the check can never run the logic.

export interface RuleLogicIssue {
  /** Relative to the logic value: object keys and array indexes down to the fault. */
  path: Array<string | number>;
  msg: string;
  type: string;
}

export const RULE_LOGIC_LIMITS = { depth: 32, nodes: 2000, bytes: 32 * 1024 } as const;

/** json-logic-js's operators without `log` (console output) and `method` (calls methods on data). */
const ARITY: Record<string, [number, number]> = {
  var: [0, 2], missing: [0, Infinity], missing_some: [2, 2],
  if: [1, Infinity], '?:': [1, Infinity],
  '==': [2, 2], '===': [2, 2], '!=': [2, 2], '!==': [2, 2],
  '!': [0, Infinity], '!!': [0, Infinity], or: [1, Infinity], and: [1, Infinity],
  '>': [2, 2], '>=': [2, 2], '<': [2, 3], '<=': [2, 3],
  max: [0, Infinity], min: [0, Infinity], '+': [0, Infinity], '-': [1, 2], '*': [1, Infinity], '/': [2, 2], '%': [2, 2],
  map: [2, 2], reduce: [2, 3], filter: [2, 2], all: [2, 2], none: [2, 2], some: [2, 2], merge: [0, Infinity],
  in: [2, 2], cat: [0, Infinity], substr: [2, 3],
};

/** Path segments that would walk from data into JavaScript internals. */
const FORBIDDEN_SEGMENTS = new Set(['__proto__', 'prototype', 'constructor']);

const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function checkVarPath(path: unknown): string | null {
  if (path === null || path === undefined || typeof path === 'number') return null;
  if (typeof path !== 'string') return 'var takes a literal path (a string or a number)';
  for (const segment of path.split('.')) if (FORBIDDEN_SEGMENTS.has(segment)) return `var path segment '${segment}' is not allowed`;
  return null;
}

/** Every fault of a JSONLogic expression; empty when it may be saved. Never throws on JSON input. */
export function ruleLogicIssues(logic: unknown): RuleLogicIssue[] {
  const issues: RuleLogicIssue[] = [];
  let nodes = 0;
  let tooMany = false;
  let tooDeep = false;

  const walk = (node: unknown, path: Array<string | number>, depth: number): void => {
    if (issues.length >= 20) return;
    if (depth > RULE_LOGIC_LIMITS.depth) {
      if (!tooDeep) issues.push({ path, msg: `Logic nests deeper than ${RULE_LOGIC_LIMITS.depth} levels`, type: 'value_error' });
      tooDeep = true;
      return;
    }
    if (++nodes > RULE_LOGIC_LIMITS.nodes) {
      if (!tooMany) issues.push({ path: [], msg: `Logic has more than ${RULE_LOGIC_LIMITS.nodes} nodes`, type: 'value_error' });
      tooMany = true;
      return;
    }
    if (Array.isArray(node)) {
      node.forEach((item, i) => walk(item, [...path, i], depth + 1));
      return;
    }
    if (!isPlainObject(node)) return; // a literal
    const keys = Object.keys(node);
    if (keys.length !== 1) {
      issues.push({ path, msg: `An operation is an object with exactly one key (the operator); got ${keys.length === 0 ? 'none' : keys.map((k) => `'${k}'`).join(', ')}`, type: 'value_error' });
      return;
    }
    const op = keys[0]!;
    const arity = Object.prototype.hasOwnProperty.call(ARITY, op) ? ARITY[op] : undefined;
    if (!arity) {
      issues.push({ path, msg: `Unknown operator '${op}'`, type: 'value_error' });
      return;
    }
    const raw = node[op];
    const args = Array.isArray(raw) ? raw : [raw];
    const count = Array.isArray(raw) ? raw.length : raw === undefined ? 0 : 1;
    if (count < arity[0] || count > arity[1]) {
      const want = arity[0] === arity[1] ? `${arity[0]}` : arity[1] === Infinity ? `at least ${arity[0]}` : `${arity[0]} to ${arity[1]}`;
      issues.push({ path: [...path, op], msg: `'${op}' takes ${want} argument${want === '1' ? '' : 's'}, got ${count}`, type: 'value_error' });
      return;
    }
    if (op === 'var') {
      const fault = checkVarPath(args[0]);
      if (fault) issues.push({ path: [...path, op], msg: fault, type: 'value_error' });
    }
    if (Array.isArray(raw)) raw.forEach((item, i) => walk(item, [...path, op, i], depth + 1));
    else walk(raw, [...path, op], depth + 1);
  };

  let size = 0;
  try {
    size = JSON.stringify(logic)?.length ?? 0;
  } catch {
    return [{ path: [], msg: 'Logic is not JSON', type: 'value_error' }];
  }
  if (size > RULE_LOGIC_LIMITS.bytes) return [{ path: [], msg: `Logic is larger than ${RULE_LOGIC_LIMITS.bytes / 1024} KB`, type: 'value_error' }];
  walk(logic, [], 0);
  return issues;
}
