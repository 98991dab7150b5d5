export { compileRules, type CompilableRule, type RuleSet, type Verdict } from './rule-set.js';
export { parseRulesYaml, type RulesIssue, type RulesYamlResult } from './rules-yaml.js';
export { testRules, type RuleTestResultItem } from './rule-test.js';
export { RulesCache, rulesStampKey, type CompiledRules, type RuleSource, type StampStore } from './rules-cache.js';
