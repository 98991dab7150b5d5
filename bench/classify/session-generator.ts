// Session summaries as the sessionizer leaves them (libs/schemas SessionState): the vocabulary of
// the read benchmark's site (bench/read/visitor-profiles.ts), UUIDv4 session ids, a third of the
// sessions bounces, a long tail up to 60 events, `seen` holding a 12-hex-digit hash per event.
// Attributes stay empty: the projects have no attribute rules, so the backfill takes its
// classification-only path (services/worker/src/backfill-job.ts).
import type { SessionState, Utm } from '@spoor/schemas';
import type { SeededRandom } from '../read/seeded-random.js';
import { ACTIONS, CLIENTS, GEOS, PAGES, REFERRERS, UTMS } from '../read/visitor-profiles.js';

export const SITE_ORIGIN = 'https://acme.example';
const DAY_MS = 86_400_000;
/** Sessions end within the 30 days before this instant. */
const END_MS = Date.UTC(2026, 10, 1);
const ACTION_WEIGHT = ACTIONS.reduce((n, a) => n + a.weight, 0);

function eventCount(rng: SeededRandom): number {
  const r = rng.next();
  if (r < 0.33) return 1;
  if (r < 0.85) return rng.between(2, 10);
  return rng.between(11, 60);
}

function entryUrl(path: string, utm: Utm): string {
  if (!utm.source) return `${SITE_ORIGIN}${path}`;
  const q = new URLSearchParams({
    utm_source: utm.source,
    ...(utm.medium ? { utm_medium: utm.medium } : {}),
    ...(utm.campaign ? { utm_campaign: utm.campaign } : {}),
  });
  return `${SITE_ORIGIN}${path}?${q.toString()}`;
}

const hex12 = (rng: SeededRandom) =>
  rng.int(0x1000000).toString(16).padStart(6, '0') + rng.int(0x1000000).toString(16).padStart(6, '0');

/** The events of a session folded as applyEvent (services/sessionizer) would fold them. */
function foldEvents(rng: SeededRandom, count: number) {
  const actions: Record<string, number> = { pageview: 1 };
  const seen = [hex12(rng)];
  let page = rng.pick(PAGES).path;
  const entry = page;
  let duration = 0;
  for (let k = 1; k < count; k++) {
    duration += rng.between(2_000, 120_000);
    const action = rng.weighted(ACTIONS, ACTION_WEIGHT).action;
    actions[action] = (actions[action] ?? 0) + 1;
    if (action === 'pageview') page = rng.pick(PAGES).path;
    seen.push(hex12(rng));
  }
  return { actions, seen, entry, exit: page, duration };
}

/** One closed session of `projectId`, ending at a random time in the 30 days before END_MS. */
export function generateSession(projectId: string, rng: SeededRandom): SessionState {
  const count = eventCount(rng);
  const client = rng.pick(CLIENTS);
  const utm = rng.pick(UTMS);
  const { actions, seen, entry, exit, duration } = foldEvents(rng, count);
  const last = END_MS - rng.int(30 * DAY_MS);
  return {
    session_id: rng.uuid4(),
    project_id: projectId,
    first_event_at: last - duration,
    last_event_at: last,
    duration_ms: duration,
    event_count: count,
    actions,
    entry_url: entryUrl(entry, utm),
    exit_url: `${SITE_ORIGIN}${exit}`,
    page_count: actions['pageview'] ?? 0,
    referrer: rng.pick(REFERRERS),
    utm,
    browser: client.browser,
    os: client.os,
    device: client.device,
    geo: rng.pick(GEOS),
    attributes: {},
    tags: [],
    classification: null,
    updated_at: last + rng.between(20, 300),
    seen,
  };
}

export function generateSessions(projectId: string, rng: SeededRandom, n: number): SessionState[] {
  return Array.from({ length: n }, () => generateSession(projectId, rng));
}
