import type { RuleDefinitionInput } from '@spoor/schemas';
import { compileRules } from './rule-set.js';

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
export function testRules(sessions: Array<Record<string, unknown>>, rules: RuleDefinitionInput[]): { results: RuleTestResultItem[] } {
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
  );
  const results = sessions.map((session) => {
    const attributes: Record<string, unknown> = isObject(session.attributes) ? { ...session.attributes } : {};
    const events = Array.isArray(session.events) ? session.events.filter(isObject) : [];
    const ordered = events.map((e, i) => ({ e, i })).sort((a, b) => (Number(a.e.timestamp) || 0) - (Number(b.e.timestamp) || 0) || a.i - b.i);
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
  return { results };
}
