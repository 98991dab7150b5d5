import type { components } from '@spoor/client';
import { api, ok } from './api-access.js';
import { inputTime } from './display-format.js';
import type { Scope } from './project-scope.js';

type Summary = components['schemas']['SessionSummary'];

export interface SessionFilter { from?: number; to?: number; tag?: string; classification?: string }

export const UNCLASSIFIED = '(unclassified)';

export function filterFromQuery(q: URLSearchParams): SessionFilter {
  return { from: inputTime(q.get('from') ?? ''), to: inputTime(q.get('to') ?? ''), tag: q.get('tag') || undefined, classification: q.get('class') || undefined };
}

function classifiedAs(s: Summary, wanted: string): boolean {
  if (wanted === UNCLASSIFIED) return !s.classification || s.classification.rule_ids.length === 0;
  return !!s.classification && (s.classification.rule_ids.includes(wanted) || s.classification.labels.includes(wanted));
}

/**
 * The sessions a filter selects, newest first, with their summaries. The API lists sessions by
 * time window and tagged sessions by tag; a classification is read from each summary, so the
 * page loads at most `limit` summaries (fetched in parallel).
 */
export async function loadSessions(scope: Scope, f: SessionFilter, limit = 50): Promise<Summary[]> {
  const window = { ...(f.from ? { window_start: f.from } : {}), ...(f.to ? { window_end: f.to } : {}) };
  const { sessions } = await ok(api().GET('/v1/sessions', { params: { query: { ...scope, ...window, limit: f.tag || f.classification ? 1000 : limit } } }));
  let ids = sessions.map((s) => s.session_id);
  if (f.tag) {
    const tagged = await ok(api().GET('/v1/tags/{tag}', { params: { path: { tag: f.tag }, query: { ...scope, ...window, limit: 1000 } } }));
    const set = new Set(tagged.sessions.map((s) => s.session_id));
    ids = ids.filter((id) => set.has(id));
  }
  const summaries: Summary[] = [];
  for (let i = 0; i < ids.length && summaries.length < limit; i += limit) {
    const batch = await Promise.all(ids.slice(i, i + limit).map((id) => ok(api().GET('/v1/sessions/{session_id}', { params: { path: { session_id: id }, query: scope } }))));
    summaries.push(...batch.filter((s) => !f.classification || classifiedAs(s, f.classification)));
  }
  return summaries.slice(0, limit);
}
