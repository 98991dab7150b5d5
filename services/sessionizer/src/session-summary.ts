import { createHash } from 'node:crypto';
import { PAGE_VIEW_ACTIONS, type EnrichedEvent, type SessionState } from '@spoor/schemas';

/** Page views count by PAGE_VIEW_ACTIONS (the logger sends `pageview`; others are common spellings). */
export { PAGE_VIEW_ACTIONS };

/** 48 bits of the event id: enough that two events of one session practically never collide. */
export function seenHash(eventId: string): string {
  return createHash('sha1').update(eventId).digest('hex').slice(0, 12);
}

export function emptySession(e: EnrichedEvent): SessionState {
  return {
    session_id: e.session_id,
    project_id: e.project_id,
    first_event_at: e.timestamp,
    last_event_at: e.timestamp,
    duration_ms: 0,
    event_count: 0,
    actions: {},
    entry_url: null,
    exit_url: null,
    page_count: 0,
    referrer: e.referrer,
    utm: e.utm,
    browser: e.browser,
    os: e.os,
    device: e.device,
    geo: e.geo,
    attributes: {},
    tags: [],
    classification: null,
    updated_at: 0,
    seen: [],
  };
}

/**
 * Folds one event into a session summary. Events may arrive out of order, so first/last,
 * entry/exit come from timestamps, not arrival. Returns false (and changes nothing) for an
 * event already applied: redeliveries and repeats are never counted twice.
 */
export function applyEvent(s: SessionState, e: EnrichedEvent, now: number): boolean {
  const hash = seenHash(e.event_id);
  if (s.seen.includes(hash)) return false;
  s.seen.push(hash);
  const first = s.event_count === 0;
  s.event_count += 1;
  s.actions[e.action] = (s.actions[e.action] ?? 0) + 1;
  if (PAGE_VIEW_ACTIONS.has(e.action)) s.page_count += 1;
  if (first || e.timestamp < s.first_event_at) {
    s.first_event_at = e.timestamp;
    if (e.url) s.entry_url = e.url;
    if (e.referrer) s.referrer = e.referrer;
    if (e.utm.source) s.utm = e.utm;
  }
  if (first || e.timestamp >= s.last_event_at) {
    s.last_event_at = e.timestamp;
    if (e.url) s.exit_url = e.url;
  }
  s.entry_url ??= e.url;
  s.exit_url ??= e.url;
  s.referrer ??= e.referrer;
  s.duration_ms = s.last_event_at - s.first_event_at;
  s.updated_at = now;
  return true;
}
