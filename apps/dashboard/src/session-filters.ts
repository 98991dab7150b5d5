import type { components } from '@spoor/client';
import { api, ok } from './api-access.js';
import { inputTime } from './display-format.js';
import type { Scope } from './project-scope.js';

type Summary = components['schemas']['SessionSummary'];

export interface SessionFilter {
  from?: number;
  to?: number;
  tag?: string;
  classification?: string;
}

export const UNCLASSIFIED = '(unclassified)';

export function filterFromQuery(q: URLSearchParams): SessionFilter {
  return {
    from: inputTime(q.get('from') ?? ''),
    to: inputTime(q.get('to') ?? ''),
    tag: q.get('tag') || undefined,
    classification: q.get('class') || undefined,
  };
}

function classifiedAs(s: Summary, wanted: string): boolean {
  if (wanted === UNCLASSIFIED) return !s.classification || s.classification.rule_ids.length === 0;
  return !!s.classification && (s.classification.rule_ids.includes(wanted) || s.classification.labels.includes(wanted));
}

/**
 * The sessions a filter selects, newest first, with their summaries: one request
 * (`include=summary`), two with a tag (the tagged sessions come from /v1/tags/{tag}). Before,
 * the page asked for each listed session's summary on its own, up to 50 requests (issue 15).
 */
export async function loadSessions(scope: Scope, f: SessionFilter, limit = 50): Promise<Summary[]> {
  const window = { ...(f.from ? { window_start: f.from } : {}), ...(f.to ? { window_end: f.to } : {}) };
  const [{ sessions }, tagged] = await Promise.all([
    ok(
      api().GET('/v1/sessions', {
        params: { query: { ...scope, ...window, limit: f.tag || f.classification ? 1000 : limit, include: 'summary' } },
      }),
    ),
    f.tag
      ? ok(
          api().GET('/v1/tags/{tag}', {
            params: { path: { tag: f.tag }, query: { ...scope, ...window, limit: 1000 } },
          }),
        )
      : null,
  ]);
  const taggedIds = tagged ? new Set(tagged.sessions.map((s) => s.session_id)) : null;
  // A session whose state could not be read comes back without its summary fields: left out.
  const whole = (s: (typeof sessions)[number]): s is Summary => s.geo !== undefined && s.classification !== undefined;
  return sessions
    .filter(whole)
    .filter(
      (s) => (!taggedIds || taggedIds.has(s.session_id)) && (!f.classification || classifiedAs(s, f.classification)),
    )
    .slice(0, limit);
}
