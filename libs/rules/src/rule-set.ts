import { applyWithin, EvaluationBudgetError, truthy, type Meter } from './metered-logic.js';
import { ruleLogicIssues, type RuleRecord, type RuleTag } from '@spoor/schemas';

/** The fields of a rule that evaluation needs. */
export type CompilableRule = Pick<
  RuleRecord,
  'rule_id' | 'kind' | 'logic' | 'tags' | 'label' | 'attribute' | 'value' | 'enabled'
>;

export interface Verdict {
  /** Matched rule ids, sorted. */
  rule_ids: string[];
  /** Labels of the matched rules, deduplicated, in rule_id order. */
  labels: string[];
  /** The matched rules' tags as (rule, tag) pairs, in rule_id order. */
  tags: RuleTag[];
}

export interface RuleSet {
  /** Runs the enabled classification rules on a session summary. Never throws. */
  classify(session: Record<string, unknown>): Verdict;
  /**
   * Runs the enabled attribute rules on one event: each whose logic holds sets
   * into[attribute] to its value (for two rules on one attribute, the later rule_id wins).
   * Answers whether anything changed. Never throws.
   */
  extract(event: Record<string, unknown>, into: Record<string, unknown>): boolean;
  /**
   * classify and extract one evaluation at a time: the generator pauses after each, so that a
   * caller can give the event loop back between them (POST /v1/rules/test, issue 42).
   */
  classifying(session: Record<string, unknown>): Generator<void, Verdict>;
  extracting(event: Record<string, unknown>, into: Record<string, unknown>): Generator<void, boolean>;
  /** A compiled rule by id (enabled ones only). */
  rule(ruleId: string): { label: string | null; tags: string[] } | undefined;
  /** Evaluations that threw (counted as not matched), per rule_id. */
  readonly errors: Map<string, number>;
  /** Evaluations stopped by the evaluation budget (also counted in `errors`), per rule_id. */
  readonly overBudget: Map<string, number>;
  /** Rules left out at compile time because their logic is invalid (saved before a validation change). */
  readonly invalid: string[];
}

interface Compiled {
  rule_id: string;
  logic: unknown;
  label: string | null;
  tags: string[];
  attribute: string;
  value: unknown;
}

/** What an evaluation that threw answers: the rule does not apply. */
const FAILED = Symbol('failed');

const byId = (a: { rule_id: string }, b: { rule_id: string }) =>
  a.rule_id < b.rule_id ? -1 : a.rule_id > b.rule_id ? 1 : 0;

function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  try {
    return JSON.stringify(a) === JSON.stringify(b);
  } catch {
    return false; // not JSON (a cycle): count it as a change rather than throw
  }
}

function isValid(r: CompilableRule): boolean {
  if (ruleLogicIssues(r.logic).length > 0) return false;
  return r.kind !== 'attribute' || (!!r.attribute && ruleLogicIssues(r.value).length === 0);
}

const toCompiled = (r: CompilableRule): Compiled => ({
  rule_id: r.rule_id,
  logic: r.logic,
  label: r.label,
  tags: [...new Set(r.tags)],
  attribute: r.attribute ?? '',
  value: r.value,
});

/**
 * Compiles rules once for many evaluations with json-logic-js (DESIGN.md, Rules). Logic is
 * checked again with the save-time validator, once here and never per call: only allowed
 * operators run, and `var` paths are literals that cannot name Object.prototype members, which
 * is what keeps evaluation out of prototypes without copying the data (json-logic-js's `var`
 * reads `data[key]`, inherited properties included). A rule that throws on some data (say
 * `missing_some` over a null list) does not match and is counted in `errors`. `validated`: the
 * caller has just checked the logic with the same validator (a rules test, whose 256 KB of rules
 * would otherwise be checked a second time on the HTTP thread).
 */
export function compileRules(rules: CompilableRule[], meter?: Meter, validated = false): RuleSet {
  const invalid: string[] = [];
  const enabled = rules.filter((r) => r.enabled).sort(byId);
  const usable = enabled.filter((r) => validated || isValid(r) || (invalid.push(r.rule_id), false));
  const classification = usable.filter((r) => r.kind !== 'attribute').map(toCompiled);
  const attribute = usable.filter((r) => r.kind === 'attribute').map(toCompiled);
  const index = new Map([...classification, ...attribute].map((r) => [r.rule_id, r]));
  const errors = new Map<string, number>();
  const overBudget = new Map<string, number>();

  // json-logic-js's semantics, metered so that one evaluation cannot hold the event loop
  // (metered-logic.ts): its steps count the work done, lists and strings by their length.
  const evaluate = (r: Compiled, logic: unknown, data: Record<string, unknown>): unknown => {
    try {
      return applyWithin(logic, data, meter);
    } catch (err) {
      errors.set(r.rule_id, (errors.get(r.rule_id) ?? 0) + 1);
      if (err instanceof EvaluationBudgetError) overBudget.set(r.rule_id, (overBudget.get(r.rule_id) ?? 0) + 1);
      return FAILED;
    }
  };
  const holds = (r: Compiled, data: Record<string, unknown>): boolean => {
    const result = evaluate(r, r.logic, data);
    return result !== FAILED && truthy(result);
  };

  function* classifying(session: Record<string, unknown>): Generator<void, Verdict> {
    const verdict: Verdict = { rule_ids: [], labels: [], tags: [] };
    for (const r of classification) {
      const matched = holds(r, session);
      yield;
      if (!matched) continue;
      verdict.rule_ids.push(r.rule_id);
      if (r.label !== null && !verdict.labels.includes(r.label)) verdict.labels.push(r.label);
      for (const tag of r.tags) verdict.tags.push({ rule_id: r.rule_id, tag });
    }
    return verdict;
  }

  function* extracting(event: Record<string, unknown>, into: Record<string, unknown>): Generator<void, boolean> {
    // Final values first (the later rule_id overwrites), so that "changed" compares end states.
    let next: Map<string, unknown> | undefined;
    for (const r of attribute) {
      const matched = holds(r, event);
      yield;
      if (!matched) continue;
      const value = evaluate(r, r.value, event);
      yield;
      if (value !== FAILED) (next ??= new Map()).set(r.attribute, value === undefined ? null : value);
    }
    return next ? assign(into, next) : false;
  }

  return {
    errors,
    overBudget,
    invalid,
    rule: (ruleId) => {
      const r = index.get(ruleId);
      return r ? { label: r.label, tags: r.tags } : undefined;
    },
    classify: (session) => finish(classifying(session)),
    extract: (event, into) => finish(extracting(event, into)),
    classifying,
    extracting,
  };
}

/** Runs a generator to its end without pausing: the pipeline's synchronous path. */
function finish<T>(steps: Generator<void, T>): T {
  for (;;) {
    const next = steps.next();
    if (next.done) return next.value;
  }
}

/** Writes `values` into `into`; own data properties, so an attribute named `__proto__` is just a name. */
function assign(into: Record<string, unknown>, values: Map<string, unknown>): boolean {
  let changed = false;
  for (const [name, value] of values) {
    if (Object.prototype.hasOwnProperty.call(into, name) && sameValue(into[name], value)) continue;
    Object.defineProperty(into, name, { value, enumerable: true, writable: true, configurable: true });
    changed = true;
  }
  return changed;
}
