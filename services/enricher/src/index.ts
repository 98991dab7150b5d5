export { enricherModule } from './enricher-module.js';
export { EnricherService } from './enricher-service.js';
export { assignSessions, derivedSessionId, SESSION_GAP_MS } from './session-assigner.js';
