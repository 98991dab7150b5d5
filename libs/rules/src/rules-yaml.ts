import { parseAllDocuments } from 'yaml';
import { RULE_TEST_LIMITS, RuleDefinition, type RuleDefinitionInput } from '@spoor/schemas';

export interface RulesIssue {
  loc: Array<string | number>;
  msg: string;
  type: string;
}

export type RulesYamlResult = { ok: true; rules: RuleDefinitionInput[] } | { ok: false; issues: RulesIssue[] };

/** Aliases a document may expand; beyond it a document is a resource-exhaustion attempt. */
const MAX_ALIAS_COUNT = 100;

const fail = (msg: string, loc: Array<string | number> = ['rules']): RulesYamlResult => ({ ok: false, issues: [{ loc, msg, type: 'value_error' }] });

function position(err: { linePos?: [{ line: number; col: number }, ...unknown[]] | undefined; message: string }): string {
  const first = err.message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, '');
  const pos = err.linePos?.[0];
  return pos ? `YAML error at line ${pos.line}, column ${pos.col}: ${first}` : `YAML error: ${first}`;
}

/**
 * The rules document of POST /v1/rules/test (DESIGN.md, Rules): a YAML list of rule
 * definitions, or a mapping with a `rules:` list. Errors come back as 422 items located under
 * `rules` (the caller prefixes `body`): syntax errors name line and column; alias bombs,
 * oversized or multi-document input and invalid or duplicate rules are refused.
 */
export function parseRulesYaml(text: string): RulesYamlResult {
  if (Buffer.byteLength(text, 'utf8') > RULE_TEST_LIMITS.yamlBytes) return fail(`The rules document is larger than ${RULE_TEST_LIMITS.yamlBytes / 1024} KB`);
  const docs = parseAllDocuments(text, { prettyErrors: true, uniqueKeys: true });
  if (!Array.isArray(docs)) return fail('The rules document is empty');
  if (docs.length !== 1) return fail(`Expected one YAML document, got ${docs.length}`);
  const doc = docs[0]!;
  const problem = doc.errors[0];
  if (problem) return fail(position(problem as never));
  let data: unknown;
  try {
    data = doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT });
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    return fail(/alias/i.test(message) ? `The rules document expands more than ${MAX_ALIAS_COUNT} aliases` : `YAML error: ${message}`);
  }
  const list = Array.isArray(data) ? data : data !== null && typeof data === 'object' && Array.isArray((data as { rules?: unknown }).rules) ? (data as { rules: unknown[] }).rules : null;
  if (!list) return fail('Expected a list of rules, or a mapping with a `rules:` list');
  const rules: RuleDefinitionInput[] = [];
  const issues: RulesIssue[] = [];
  const seen = new Map<string, number>();
  list.forEach((entry, i) => {
    const parsed = RuleDefinition.safeParse(entry);
    if (!parsed.success) {
      for (const issue of parsed.error.issues) {
        const path = issue.path.map((p) => (typeof p === 'number' ? p : String(p)));
        const input = path.reduce<unknown>((cur, key) => (cur !== null && typeof cur === 'object' ? (cur as Record<string | number, unknown>)[key] : undefined), entry);
        const custom = issue.code === 'custom' ? (issue.params as { type?: string } | undefined)?.type : undefined;
        const type = custom ?? (issue.code === 'invalid_type' && input === undefined ? 'missing' : issue.code);
        issues.push({ loc: ['rules', i, ...path], msg: type === 'missing' && !custom ? 'Field required' : issue.message, type });
      }
      return;
    }
    const id = parsed.data.rule_id;
    if (seen.has(id)) issues.push({ loc: ['rules', i, 'rule_id'], msg: `Duplicate rule_id '${id}' (also entry ${seen.get(id)})`, type: 'value_error' });
    else seen.set(id, i);
    rules.push(parsed.data);
  });
  return issues.length ? { ok: false, issues } : { ok: true, rules };
}
