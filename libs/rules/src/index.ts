export { compileRules, type CompilableRule, type RuleSet, type Verdict } from './rule-set.js';
export { parseRulesYaml, type RulesIssue, type RulesYamlResult } from './rules-yaml.js';
export { testRulesOffThread } from './rules-yaml-thread.js';
export type { PlainIssue, RuleTestReply } from './rule-test-text.js';
export { testRules, RuleTestBudgetError, RULE_TEST_TOTAL_STEPS, type RuleTestResultItem } from './rule-test.js';
export { applyWithin, EvaluationBudgetError, type Meter } from './metered-logic.js';
export {
  RulesCache,
  rawFieldsReadableFrom,
  rulesStampKey,
  type CompiledRules,
  type RawFieldsReadable,
  type RuleSource,
  type StampStore,
} from './rules-cache.js';
export { compileFunnelStep, funnelStepLogic, funnelStepMatcher, type CompiledFunnelStep } from './funnel-steps.js';
export { rawFieldsRead } from './raw-fields.js';
