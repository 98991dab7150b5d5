export { classifierModule } from './classifier-module.js';
export { ClassifierService, classificationJob } from './classifier-service.js';
export { SessionClassifier, type ClassifyOptions, type ClassifyOutcome, type RuleMatch, type SessionClassifierDeps } from './session-classifier.js';
