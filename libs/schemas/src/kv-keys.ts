// KV keys that belong to one project (issue 17: once a project is deleted, the KV holds
// nothing of it). Each starts with the project id after a fixed word, so one prefix scan finds
// them: open session states (`openSessionKey`, the sessionizer), open derived sessions
// (`derivedSessionPrefix`, the enricher's session-assigner.ts), dedup claims (`dedup:` +
// `<project_id>:<event_id>`, the enricher's dedup-window.ts) and the rules stamp
// (`rules:stamp:<project_id>`, libs/rules rules-cache.ts). A new per-project key belongs here.
import { openSessionKey } from './sessions.js';

export const derivedSessionPrefix = (projectId: string) => `sid:${projectId}:`;

export function projectKvPrefixes(projectId: string): string[] {
  return [openSessionKey(projectId, ''), derivedSessionPrefix(projectId), `dedup:${projectId}:`, `rules:stamp:${projectId}`];
}
