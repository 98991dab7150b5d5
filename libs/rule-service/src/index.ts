// Rules applied to the store (issue 20, item 3): the classification of sessions, shared by the
// classifier and the worker's backfill, and rule versioning, used by the gateway. Apart from
// libs/rules (compiling and evaluating rules), which the store's own tests use and which
// therefore cannot depend on the store.
export {
  SessionClassifier,
  type ClassifyOptions,
  type ClassifyOutcome,
  type SessionClassifierDeps,
} from './session-classifier.js';
export { saveRuleVersion, RuleVersionConflict, type RuleContent, type RuleVersionDeps } from './rule-versions.js';
