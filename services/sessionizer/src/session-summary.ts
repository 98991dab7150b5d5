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
 * An event's place in its session: its time, then its event id. Among events of one millisecond
 * the smaller id comes first, as in the funnel breakdown and the rollups (issue 43).
 */
type Place = [number, string];

/**
 * The places of the events a summary's picked fields came from: `first` (browser, OS, device,
 * geo, and the UTM fields while no event had a source), `entry` and `exit` (the earliest and
 * latest with a URL), `referrer` (the earliest with one), `utm` (the earliest with a source). With
 * them a late event, or one in the same millisecond, changes the summary as it would have in
 * order. They ride in `seen` after the mark, `^` and the JSON (see MARK_PREFIX).
 */
interface Picks {
  first?: Place;
  entry?: Place;
  exit?: Place;
  referrer?: Place;
  utm?: Place;
}

const PICKS_PREFIX = '^';

const isHead = (entry: string) => entry.startsWith(MARK_PREFIX) || entry.startsWith(PICKS_PREFIX);

/** The picks of a state; one written before they existed gets places with the empty id (ties keep its fields). */
function picksOf(s: SessionState): Picks {
  const entry = s.seen.find((x) => x.startsWith(PICKS_PREFIX));
  if (entry) return JSON.parse(entry.slice(PICKS_PREFIX.length)) as Picks;
  if (s.event_count === 0) return {};
  const first: Place = [s.first_event_at, ''];
  return {
    first,
    ...(s.entry_url !== null ? { entry: first } : {}),
    ...(s.exit_url !== null ? { exit: [s.last_event_at, ''] as Place } : {}),
    ...(s.referrer !== null ? { referrer: first } : {}),
    ...(s.utm.source !== null ? { utm: first } : {}),
  };
}

function setPicks(s: SessionState, picks: Picks): void {
  const entry = `${PICKS_PREFIX}${JSON.stringify(picks)}`;
  const at = s.seen.findIndex((x) => x.startsWith(PICKS_PREFIX));
  if (at >= 0) s.seen[at] = entry;
  else s.seen.splice(markOf(s) ? 1 : 0, 0, entry);
}

const earlier = (a: Place, b: Place | undefined) => !b || a[0] < b[0] || (a[0] === b[0] && a[1] < b[1]);
const later = (a: Place, b: Place | undefined) => !b || a[0] > b[0] || (a[0] === b[0] && a[1] > b[1]);

/**
 * Folds one event into a session summary. Events may arrive out of order, so the summary is a
 * function of the set of events, whatever their arrival: first/last come from timestamps, and
 * each picked field from the earliest (or latest) event that has it, by time then event id.
 * Returns false (and changes nothing) for an event already applied: redeliveries and repeats
 * are never counted twice.
 */
export function applyEvent(s: SessionState, e: EnrichedEvent, now: number): boolean {
  const hash = seenHash(e.event_id);
  if (s.seen.includes(hash)) return false;
  const picks = picksOf(s);
  s.seen.push(hash);
  const head = s.seen.findIndex((x) => !isHead(x));
  const hashes = s.seen.length - head;
  if (hashes > SEEN_LIMIT) s.seen.splice(head, hashes - SEEN_LIMIT);
  s.event_count += 1;
  s.actions[e.action] = (s.actions[e.action] ?? 0) + 1;
  if (PAGE_VIEW_ACTIONS.has(e.action)) s.page_count += 1;
  pick(s, picks, e);
  s.first_event_at = picks.first![0];
  s.last_event_at = s.event_count === 1 ? e.timestamp : Math.max(s.last_event_at, e.timestamp);
  s.duration_ms = s.last_event_at - s.first_event_at;
  s.updated_at = now;
  setPicks(s, picks);
  return true;
}

/** Moves each picked field to this event when it comes before (or after) the one it came from. */
function pick(s: SessionState, picks: Picks, e: EnrichedEvent): void {
  const at: Place = [e.timestamp, e.event_id];
  if (earlier(at, picks.first)) {
    picks.first = at;
    Object.assign(s, { browser: e.browser, os: e.os, device: e.device, geo: e.geo });
    if (!picks.utm) s.utm = e.utm;
  }
  if (e.url && earlier(at, picks.entry)) [picks.entry, s.entry_url] = [at, e.url];
  if (e.url && later(at, picks.exit)) [picks.exit, s.exit_url] = [at, e.url];
  if (e.referrer && earlier(at, picks.referrer)) [picks.referrer, s.referrer] = [at, e.referrer];
  if (e.utm.source && earlier(at, picks.utm)) [picks.utm, s.utm] = [at, e.utm];
}
