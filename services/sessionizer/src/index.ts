export { sessionizerModule } from './sessionizer-module.js';
export { SessionizerService } from './sessionizer-service.js';
export { applyEvent, emptySession, seenHash, PAGE_VIEW_ACTIONS } from './session-summary.js';
