import { parseAllDocuments, type YAMLError } from 'yaml';
import { RULE_TEST_LIMITS, RuleDefinition, type RuleDefinitionInput, type z } from '@spoor/schemas';

export interface RulesIssue {
  loc: Array<string | number>;
  msg: string;
  type: string;
}

export type RulesYamlResult = { ok: true; rules: RuleDefinitionInput[] } | { ok: false; issues: RulesIssue[] };

/** Aliases a document may expand; beyond it a document is a resource-exhaustion attempt. */
const MAX_ALIAS_COUNT = 100;

const fail = (msg: string, loc: Array<string | number> = ['rules']): RulesYamlResult => ({
  ok: false,
  issues: [{ loc, msg, type: 'value_error' }],
});

/** "YAML error at line 3, column 5: …" from the library's linePos (1-based), without its code excerpt. */
function position(err: YAMLError): string {
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
  if (Buffer.byteLength(text, 'utf8') > RULE_TEST_LIMITS.yamlBytes)
    return fail(`The rules document is larger than ${RULE_TEST_LIMITS.yamlBytes / 1024} KB`);
  const docs = parseAllDocuments(text, { prettyErrors: true, uniqueKeys: true });
  if (!Array.isArray(docs) || docs.length === 0) return fail('The rules document is empty');
  if (docs.length !== 1) return fail(`Expected one YAML document, got ${docs.length}`);
  const doc = docs[0]!;
  const problem = doc.errors[0];
  if (problem) return fail(position(problem));
  let data: unknown;
  try {
    data = doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT });
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    // yaml's guard against billion-laughs expansion (its maxAliasCount option) throws this.
    const bomb = /excessive alias count/i.test(message);
    return fail(
      bomb
        ? `Aliases expand beyond the limit of ${MAX_ALIAS_COUNT} (an alias bomb): the rules document is refused`
        : `YAML error: ${message}`,
    );
  }
  const list = Array.isArray(data) ? data : isObject(data) && Array.isArray(data.rules) ? data.rules : null;
  if (!list) return fail('Expected a list of rules, or a mapping with a `rules:` list');
  return validateEntries(list);
}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** Zod issue → 422 item, kept simple: custom refinements carry their type in params.type. */
function toIssue(issue: z.core.$ZodIssue, entry: unknown, index: number): RulesIssue {
  const path = issue.path.map((p) => (typeof p === 'number' ? p : String(p)));
  const input = path.reduce<unknown>(
    (cur, key) =>
      cur !== null && typeof cur === 'object' ? (cur as Record<string | number, unknown>)[key] : undefined,
    entry,
  );
  const custom = issue.code === 'custom' ? (issue.params as { type?: string } | undefined)?.type : undefined;
  const type = custom ?? (issue.code === 'invalid_type' && input === undefined ? 'missing' : issue.code);
  return {
    loc: ['rules', index, ...path],
    msg: type === 'missing' && !custom ? 'Field required' : issue.message,
    type,
  };
}

function validateEntries(list: unknown[]): RulesYamlResult {
  const rules: RuleDefinitionInput[] = [];
  const issues: RulesIssue[] = [];
  const seen = new Map<string, number>();
  list.forEach((entry, i) => {
    const parsed = RuleDefinition.safeParse(entry);
    if (!parsed.success) return void issues.push(...parsed.error.issues.map((issue) => toIssue(issue, entry, i)));
    const id = parsed.data.rule_id;
    const first = seen.get(id);
    if (first !== undefined)
      issues.push({
        loc: ['rules', i, 'rule_id'],
        msg: `Duplicate rule_id '${id}' (also entry ${first})`,
        type: 'value_error',
      });
    else seen.set(id, i);
    rules.push(parsed.data);
  });
  return issues.length ? { ok: false, issues } : { ok: true, rules };
}
