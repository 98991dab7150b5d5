// POST /v1/rules/test's answer from the rules worker's reply (libs/rules rule-test-text.ts): the
// body is parsed, validated and evaluated on that thread (issue 42, target 2), and each thing it
// found wrong becomes the error the HTTP thread would have answered itself — 400 malformed JSON,
// 422 too deep, 422 with `loc` for the body and the rules, 422 past the evaluation budget.
import { errors, toValidationDetails } from '@spoor/http';
import type { RuleTestReply } from '@spoor/rules';
import type { z } from 'zod';

export function ruleTestAnswer(reply: RuleTestReply) {
  switch (reply.kind) {
    case 'ok':
      return { results: reply.results };
    case 'malformed':
      throw errors.malformedJson(reply.message);
    case 'too_deep':
      throw errors.tooDeep(reply.limit);
    case 'invalid_body':
      // The body stayed on the worker: its values are not echoed.
      throw errors.validation(toValidationDetails(reply.issues as unknown as z.core.$ZodIssue[], undefined, 'body'));
    case 'invalid_rules':
      throw errors.validation(reply.issues.map((i) => ({ ...i, loc: ['body', ...i.loc] })));
    case 'over_budget':
      throw errors.validation([{ loc: ['body', 'rules'], msg: reply.message, type: 'value_error' }]);
  }
}
