// The project the aggregate benchmark loads: exactly N enriched events in about N/10 sessions
// over 30 days, with the read benchmark's vocabulary (7 browser/OS/device profiles with their
// user agents, 10 places, 12 referrers, UTM on a quarter of the entry URLs, 12 paths, ~220-byte
// payloads) and the action sequences of action-sequences.ts. Each session's summary is folded by
// the sessionizer's own applyEvent, so it is exactly what the pipeline would have stored; tags
// as in the read benchmark (`vip` on 10 % of sessions, `returning` on 25 %). Generated chunk by
// chunk, never all in memory, and seeded: a size is the same data in every run.
import type { EnrichedEvent, SessionState, SessionTag, Utm } from '@spoor/schemas';
import { applyEvent, emptySession, PAGE_VIEW_ACTIONS } from '@spoor/sessionizer';
import { payloadFor } from '../read/event-payloads.js';
import { SeededRandom } from '../read/seeded-random.js';
import { CLIENTS, GEOS, PAGES, REFERRERS, TAGS, UTMS } from '../read/visitor-profiles.js';
import { FIRST_ACTION, MEAN_SESSION_EVENTS, nextAction, sessionLength } from './action-sequences.js';

export interface DatasetSpec {
  projectId: string;
  origin: string;
  project: string;
  events: number;
  /** Sessions start after this instant, spread over spanMs. */
  startMs: number;
  spanMs: number;
  /** Events per chunk (whole sessions, so a chunk may run over by one session). */
  chunk: number;
  seed: number;
}

export interface DatasetChunk {
  /** Sorted by time: ingest writes concurrent sessions interleaved. */
  events: EnrichedEvent[];
  sessions: SessionState[];
  tags: SessionTag[];
}

/** What was generated, for checking what the store and the jobs answer. */
export interface DatasetTally {
  events: number;
  sessions: number;
  /** Sessions with one page view or fewer (the aggregation's bounce rule). */
  bounces: number;
  tagFacts: number;
  /** Events per action. */
  actions: Record<string, number>;
  firstMs: number;
  lastMs: number;
}

export function emptyTally(): DatasetTally {
  return { events: 0, sessions: 0, bounces: 0, tagFacts: 0, actions: {}, firstMs: Infinity, lastMs: -Infinity };
}

/** What stays fixed over one session: who the visitor is and where they came from. */
interface Visitor {
  sessionId: string;
  client: (typeof CLIENTS)[number];
  geo: (typeof GEOS)[number];
  referrer: string | null;
  campaign: Utm;
  ip: string;
  /** The client's clock error, ms. */
  skew: number;
}

function drawVisitor(rng: SeededRandom): Visitor {
  const ip = `${rng.pick([23, 31, 45, 62, 81, 92, 104, 151, 176, 185])}.${rng.int(256)}.${rng.int(256)}.${rng.between(1, 254)}`;
  return {
    sessionId: rng.uuid4(),
    client: rng.pick(CLIENTS),
    geo: rng.pick(GEOS),
    referrer: rng.pick(REFERRERS),
    campaign: rng.pick(UTMS),
    ip,
    skew: rng.between(-3000, 3000),
  };
}

const NO_UTM: Utm = { source: null, medium: null, campaign: null, term: null, content: null };

/** The campaign's parameters ride on the entry URL only, as a landing page's do. */
function entryQuery(utm: Utm): Record<string, string> {
  const q: Record<string, string> = {};
  for (const key of ['source', 'medium', 'campaign', 'term', 'content'] as const)
    if (utm[key]) q[`utm_${key}`] = utm[key]!;
  return q;
}

function event(
  spec: DatasetSpec,
  rng: SeededRandom,
  v: Visitor,
  page: (typeof PAGES)[number],
  action: string,
  t: number,
  isEntry: boolean,
): EnrichedEvent {
  const query = isEntry ? entryQuery(v.campaign) : {};
  const search = new URLSearchParams(query).toString();
  const receivedAt = t + rng.between(20, 300);
  return {
    project_id: spec.projectId,
    project: spec.project,
    origin: spec.origin,
    event_id: rng.uuid7(receivedAt),
    action,
    timestamp: t,
    client_timestamp: t + v.skew,
    sent_at: t + v.skew + rng.between(0, 5_000),
    received_at: receivedAt,
    payload: payloadFor(action, rng, page),
    session_id: v.sessionId,
    url: `${spec.origin}${page.path}${search ? `?${search}` : ''}`,
    referrer: v.referrer,
    ip: v.ip,
    user_agent: v.client.userAgent,
    geo: v.geo,
    browser: v.client.browser,
    os: v.client.os,
    device: v.client.device,
    bot: false,
    path: page.path,
    query,
    utm: isEntry ? v.campaign : NO_UTM,
  };
}

/** One session's events, a few seconds to two minutes apart, as the chain walks. */
function sessionEvents(spec: DatasetSpec, rng: SeededRandom, start: number, count: number): EnrichedEvent[] {
  const visitor = drawVisitor(rng);
  let page = rng.pick(PAGES);
  let action = FIRST_ACTION;
  let t = start;
  const events: EnrichedEvent[] = [];
  for (let k = 0; k < count; k++) {
    if (k > 0) {
      t += rng.between(2_000, 120_000);
      action = nextAction(rng, action);
      if (PAGE_VIEW_ACTIONS.has(action)) page = rng.pick(PAGES);
    }
    events.push(event(spec, rng, visitor, page, action, t, k === 0));
  }
  return events;
}

/** The summary the sessionizer leaves after the session's last event (updated_at: its receipt). */
function summaryOf(events: EnrichedEvent[]): SessionState {
  const s = emptySession(events[0]!);
  for (const e of events) applyEvent(s, e, e.received_at);
  return s;
}

function tagsOf(rng: SeededRandom, s: SessionState): SessionTag[] {
  return TAGS.filter((tag) => rng.next() < tag.share).map((tag) => ({
    project_id: s.project_id,
    session_id: s.session_id,
    tag: tag.tag,
    source: 'manual',
    tagged_at: s.last_event_at,
    removed: false,
    changed_at: s.updated_at,
  }));
}

function count(tally: DatasetTally, events: EnrichedEvent[], s: SessionState, tags: SessionTag[]): void {
  tally.events += events.length;
  tally.sessions++;
  if (s.page_count <= 1) tally.bounces++;
  tally.tagFacts += tags.length;
  for (const e of events) tally.actions[e.action] = (tally.actions[e.action] ?? 0) + 1;
  tally.firstMs = Math.min(tally.firstMs, s.first_event_at);
  tally.lastMs = Math.max(tally.lastMs, s.last_event_at);
}

/**
 * Yields chunks of about `spec.chunk` events until exactly `spec.events` are out (the last
 * session is cut short), and fills `tally` as it goes. Session starts are a Poisson process
 * whose rate puts the expected number of sessions over the span, so they come oldest first.
 */
export function* generateDataset(spec: DatasetSpec, tally: DatasetTally): Generator<DatasetChunk> {
  const rng = new SeededRandom(spec.seed);
  const meanGap = spec.spanMs / (spec.events / MEAN_SESSION_EVENTS);
  let start = spec.startMs;
  let chunk: DatasetChunk = { events: [], sessions: [], tags: [] };
  while (tally.events < spec.events) {
    start += -Math.log(1 - rng.next()) * meanGap;
    const events = sessionEvents(
      spec,
      rng,
      Math.floor(start),
      Math.min(sessionLength(rng), spec.events - tally.events),
    );
    const summary = summaryOf(events);
    const tags = tagsOf(rng, summary);
    count(tally, events, summary, tags);
    for (const e of events) chunk.events.push(e);
    chunk.sessions.push(summary);
    chunk.tags.push(...tags);
    if (chunk.events.length >= spec.chunk || tally.events >= spec.events) {
      chunk.events.sort((a, b) => a.timestamp - b.timestamp);
      yield chunk;
      chunk = { events: [], sessions: [], tags: [] };
    }
  }
}
