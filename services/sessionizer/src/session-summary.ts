import { hash } from 'node:crypto';
import {
  formatRawPosition,
  PAGE_VIEW_ACTIONS,
  parseRawPosition,
  type EnrichedEvent,
  type SessionState,
} from '@spoor/schemas';

/** Page views count by PAGE_VIEW_ACTIONS (the logger sends `pageview`; others are common spellings). */
export { PAGE_VIEW_ACTIONS };

/**
 * How many of a session's latest event ids its state remembers. They catch a client's repeat
 * that got past the enricher's dedup window; a replayed batch is caught by the mark below,
 * whatever its size. Unbounded, the list made each event's cost and each state write grow with
 * the session's length (issue 14).
 */
export const SEEN_LIMIT = 64;

/** Where a session's events were last applied from: `source` is topic/partition. */
export interface AppliedMark {
  source: string;
  offset: number;
}

/**
 * The mark rides in `seen` as its first entry, `@` and the position as RAW_POSITION_HEADER writes
 * it, `<source>#<offset>` (hashes are hex, so the `@` cannot be one): both stores keep `seen` as
 * an opaque list, and no migration is needed.
 */
const MARK_PREFIX = '@';

export function markOf(s: SessionState): AppliedMark | null {
  const first = s.seen[0];
  return first?.startsWith(MARK_PREFIX) ? parseRawPosition(first.slice(MARK_PREFIX.length)) : null;
}

export function setMark(s: SessionState, mark: AppliedMark): void {
  const entry = `${MARK_PREFIX}${formatRawPosition(mark.source, mark.offset)}`;
  if (markOf(s)) s.seen[0] = entry;
  else s.seen.unshift(entry);
}

/** True when the event at this position was applied before (a replay of a batch already stored). */
export function appliedBefore(mark: AppliedMark | null, source: string, offset: number): boolean {
  return mark !== null && mark.source === source && offset <= mark.offset;
}

/** 48 bits of the event id: enough that two events of one session practically never collide. */
export function seenHash(eventId: string): string {
  return hash('sha1', eventId, 'hex').slice(0, 12);
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
  const hashes = s.seen.length - (markOf(s) ? 1 : 0);
  if (hashes > SEEN_LIMIT) s.seen.splice(s.seen.length - hashes, hashes - SEEN_LIMIT);
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
