// POST /v1/rules/test from its body's text, run on the rules worker thread (rules-yaml-thread.ts;
// issue 42, target 2). The body is up to 4 MB of JSON; parsing it, walking it for its depth and
// collecting it held the HTTP thread 75–130 ms a request (a 2.6 MB probe: JSON.parse ~25 ms, the
// depth walk ~10 ms, the garbage collector ~30 ms), so the text goes over and only the verdicts,
// or what was wrong, come back.
import { MAX_JSON_DEPTH, RuleTestRequest, jsonDepthExceeds } from '@spoor/schemas';
import { RuleTestBudgetError, testRules, type RuleTestResultItem } from './rule-test.js';
import { parseRulesYaml, type RulesIssue } from './rules-yaml.js';

/** A zod issue as it crosses threads: its own fields but the input (which may be large). */
export type PlainIssue = Record<string, unknown> & { code: string; path: PropertyKey[]; message: string };

/** What the test answers, or the first thing wrong with the request, in the order a request is checked. */
export type RuleTestReply =
  | { kind: 'ok'; results: RuleTestResultItem[] }
  | { kind: 'malformed'; message: string }
  | { kind: 'too_deep'; limit: number }
  | { kind: 'invalid_body'; issues: PlainIssue[] }
  | { kind: 'invalid_rules'; issues: RulesIssue[] }
  | { kind: 'over_budget'; message: string };

export async function testRulesFromText(text: string): Promise<RuleTestReply> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    return { kind: 'malformed', message: (err as Error).message };
  }
  if (jsonDepthExceeds(value, MAX_JSON_DEPTH)) return { kind: 'too_deep', limit: MAX_JSON_DEPTH };
  const body = RuleTestRequest.safeParse(value);
  if (!body.success) {
    const issues = body.error.issues.map(({ input: _input, ...rest }) => rest as PlainIssue);
    return { kind: 'invalid_body', issues };
  }
  const parsed = parseRulesYaml(body.data.rules);
  if (!parsed.ok) return { kind: 'invalid_rules', issues: parsed.issues };
  try {
    // No slices here: this thread serves nothing else while it evaluates.
    return { kind: 'ok', ...(await testRules(body.data.sessions, parsed.rules, Number.POSITIVE_INFINITY)) };
  } catch (err) {
    if (err instanceof RuleTestBudgetError) return { kind: 'over_budget', message: err.message };
    throw err;
  }
}
