import jsonLogic from 'json-logic-js';
import { ruleLogicIssues, type RuleRecord, type RuleTag } from '@spoor/schemas';

/** The fields of a rule that evaluation needs. */
export type CompilableRule = Pick<RuleRecord, 'rule_id' | 'kind' | 'logic' | 'tags' | 'label' | 'attribute' | 'value' | 'enabled'>;

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
  /** A compiled rule by id (enabled ones only). */
  rule(ruleId: string): { label: string | null; tags: string[] } | undefined;
  /** Evaluations that threw (counted as not matched), per rule_id. */
  readonly errors: Map<string, number>;
  /** Rules left out at compile time because their logic is invalid (saved before a validation change). */
  readonly invalid: string[];
}

interface Compiled {
  rule_id: string;
  logic: unknown;
  label: string | null;
  tags: string[];
  attribute: string | null;
  value: unknown;
}

const byId = (a: { rule_id: string }, b: { rule_id: string }) => (a.rule_id < b.rule_id ? -1 : a.rule_id > b.rule_id ? 1 : 0);

function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  return JSON.stringify(a) === JSON.stringify(b);
}

/**
 * Compiles rules once for many evaluations with json-logic-js (DESIGN.md, Rules). Logic is
 * checked again with the save-time validator: only allowed operators run, and `var` paths
 * cannot reach prototypes. A rule that throws on some data (say `in` on a null field) does not
 * match and is counted in `errors`.
 */
export function compileRules(rules: CompilableRule[]): RuleSet {
  const invalid: string[] = [];
  const valid = (r: CompilableRule) => {
    const ok = ruleLogicIssues(r.logic).length === 0 && (r.kind !== 'attribute' || (r.attribute !== null && ruleLogicIssues(r.value).length === 0));
    if (!ok) invalid.push(r.rule_id);
    return ok;
  };
  const toCompiled = (r: CompilableRule): Compiled => ({ rule_id: r.rule_id, logic: r.logic, label: r.label, tags: [...new Set(r.tags)], attribute: r.attribute, value: r.value });
  const enabled = rules.filter((r) => r.enabled).sort(byId);
  const classification = enabled.filter((r) => r.kind !== 'attribute' && valid(r)).map(toCompiled);
  const attribute = enabled.filter((r) => r.kind === 'attribute' && valid(r)).map(toCompiled);
  const index = new Map([...classification, ...attribute].map((r) => [r.rule_id, r]));
  const errors = new Map<string, number>();

  const holds = (r: Compiled, data: Record<string, unknown>): boolean => {
    try {
      return jsonLogic.truthy(jsonLogic.apply(r.logic as jsonLogic.RulesLogic, data));
    } catch {
      errors.set(r.rule_id, (errors.get(r.rule_id) ?? 0) + 1);
      return false;
    }
  };

  return {
    errors,
    invalid,
    rule: (ruleId) => {
      const r = index.get(ruleId);
      return r ? { label: r.label, tags: r.tags } : undefined;
    },
    classify(session) {
      const verdict: Verdict = { rule_ids: [], labels: [], tags: [] };
      for (const r of classification) {
        if (!holds(r, session)) continue;
        verdict.rule_ids.push(r.rule_id);
        if (r.label !== null && !verdict.labels.includes(r.label)) verdict.labels.push(r.label);
        for (const tag of r.tags) verdict.tags.push({ rule_id: r.rule_id, tag });
      }
      return verdict;
    },
    extract(event, into) {
      let changed = false;
      for (const r of attribute) {
        if (!holds(r, event)) continue;
        let value: unknown;
        try {
          value = jsonLogic.apply(r.value as jsonLogic.RulesLogic, event);
        } catch {
          errors.set(r.rule_id, (errors.get(r.rule_id) ?? 0) + 1);
          continue;
        }
        if (value === undefined) value = null;
        if (!Object.prototype.hasOwnProperty.call(into, r.attribute!) || !sameValue(into[r.attribute!], value)) {
          Object.defineProperty(into, r.attribute!, { value, enumerable: true, writable: true, configurable: true });
          changed = true;
        }
      }
      return changed;
    },
  };
}
