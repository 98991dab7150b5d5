// The dataset the read benchmark queries: sessions of a small SaaS site spread over 30 days, each
// with its raw and enriched events, its summary as the sessionizer would have left it, and its
// tags. Generated batch by batch (never all in memory), deterministic for a given size.
import type { EnrichedEvent, RawEvent, SessionState, SessionTag, Utm } from '@spoor/schemas';
import { payloadFor } from './event-payloads.js';
import { SeededRandom } from './seeded-random.js';
import { ACTIONS, CLIENTS, GEOS, PAGES, REFERRERS, TAGS, UTMS } from './visitor-profiles.js';

export const DAY_MS = 86_400_000;
const SPAN_MS = 30 * DAY_MS;
const ACTION_WEIGHT = ACTIONS.reduce((n, a) => n + a.weight, 0);
/** How many session ids the load rotates over (and the checks can look up). */
const SAMPLE_SIZE = 1000;

export interface DatasetSpec {
  projectId: string;
  origin: string;
  project: string;
  events: number;
  sessions: number;
  /** The newest event is just before this; the oldest session starts 30 days earlier. */
  endMs: number;
  batchEvents: number;
  seed: number;
}

export interface ActionTouch {
  project_id: string;
  action: string;
  last_seen: number;
}

export interface DatasetBatch {
  raw: RawEvent[];
  enriched: EnrichedEvent[];
  sessions: SessionState[];
  tags: SessionTag[];
  actions: ActionTouch[];
}

/** What the body checks and the load generator need to know once the data is generated. */
export interface DatasetFacts {
  /** Evenly spread over time, with how many events each holds. */
  sessionSample: Array<{ session_id: string; events: number }>;
  actions: string[];
  /** tagged_at of every session per tag. */
  tagTimes: Record<string, number[]>;
  payloadBytes: number;
  events: number;
  sessions: number;
}

interface GeneratedSession {
  state: SessionState;
  events: Array<{ raw: RawEvent; enriched: EnrichedEvent }>;
  tags: SessionTag[];
}

function randomIp(rng: SeededRandom): string {
  return `${rng.pick([23, 31, 45, 62, 81, 92, 104, 151, 176, 185])}.${rng.int(256)}.${rng.int(256)}.${rng.between(1, 254)}`;
}

function queryOf(path: string, utm: Utm | null, rng: SeededRandom): Record<string, string> {
  const q: Record<string, string> = {};
  if (utm?.source) {
    q['utm_source'] = utm.source;
    if (utm.medium) q['utm_medium'] = utm.medium;
    if (utm.campaign) q['utm_campaign'] = utm.campaign;
    if (utm.term) q['utm_term'] = utm.term;
    if (utm.content) q['utm_content'] = utm.content;
  }
  if (path === '/search') q['q'] = rng.pick(['session replay', 'funnels', 'self hosted', 'gdpr']);
  if (path === '/pricing' && rng.next() < 0.3) q['plan'] = rng.pick(['team', 'business']);
  return q;
}

function utmOfQuery(q: Record<string, string>): Utm {
  return {
    source: q['utm_source'] ?? null,
    medium: q['utm_medium'] ?? null,
    campaign: q['utm_campaign'] ?? null,
    term: q['utm_term'] ?? null,
    content: q['utm_content'] ?? null,
  };
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
  return {
    sessionId: rng.uuid4(),
    client: rng.pick(CLIENTS),
    geo: rng.pick(GEOS),
    referrer: rng.pick(REFERRERS),
    campaign: rng.pick(UTMS),
    ip: randomIp(rng),
    skew: rng.between(-3000, 3000),
  };
}

/** One event as ingest would have stored it raw, and as the enricher would have stored it. */
function eventPair(
  spec: DatasetSpec,
  rng: SeededRandom,
  v: Visitor,
  page: (typeof PAGES)[number],
  action: string,
  t: number,
  isEntry: boolean,
): GeneratedSession['events'][number] {
  const query = queryOf(page.path, isEntry ? v.campaign : null, rng);
  const search = new URLSearchParams(query).toString();
  const url = `${spec.origin}${page.path}${search ? `?${search}` : ''}`;
  const sentAt = t + v.skew + rng.between(0, 5_000);
  const receivedAt = t + rng.between(20, 300);
  const raw: RawEvent = {
    project_id: spec.projectId,
    project: spec.project,
    origin: spec.origin,
    event_id: rng.uuid7(receivedAt),
    action,
    timestamp: t,
    client_timestamp: t + v.skew,
    sent_at: sentAt,
    received_at: receivedAt,
    payload: payloadFor(action, rng, page),
    session_id: v.sessionId,
    url,
    referrer: v.referrer,
    ip: v.ip,
    user_agent: v.client.userAgent,
  };
  const enriched: EnrichedEvent = {
    ...raw,
    session_id: v.sessionId,
    geo: v.geo,
    browser: v.client.browser,
    os: v.client.os,
    device: v.client.device,
    bot: false,
    path: page.path,
    query,
    utm: utmOfQuery(query),
  };
  return { raw, enriched };
}

/** The summary the sessionizer would have written after the session's last event. */
function summaryOf(spec: DatasetSpec, v: Visitor, events: GeneratedSession['events']): SessionState {
  const first = events[0]!.enriched;
  const last = events[events.length - 1]!.enriched;
  const actions: Record<string, number> = {};
  for (const { raw } of events) actions[raw.action] = (actions[raw.action] ?? 0) + 1;
  return {
    session_id: v.sessionId,
    project_id: spec.projectId,
    first_event_at: first.timestamp,
    last_event_at: last.timestamp,
    duration_ms: last.timestamp - first.timestamp,
    event_count: events.length,
    actions,
    entry_url: first.url,
    exit_url: last.url,
    page_count: actions['pageview'] ?? 0,
    referrer: v.referrer,
    utm: first.utm,
    browser: v.client.browser,
    os: v.client.os,
    device: v.client.device,
    geo: v.geo,
    attributes: {},
    tags: [],
    classification: null,
    updated_at: last.received_at,
    seen: [],
  };
}

/** One session: events a few seconds to two minutes apart, starting with a page view. */
function generateSession(spec: DatasetSpec, rng: SeededRandom, start: number, count: number): GeneratedSession {
  const visitor = drawVisitor(rng);
  let page = rng.pick(PAGES);
  let t = start;
  const events: GeneratedSession['events'] = [];
  for (let k = 0; k < count; k++) {
    if (k > 0) t += rng.between(2_000, 120_000);
    const action = k === 0 ? 'pageview' : rng.weighted(ACTIONS, ACTION_WEIGHT).action;
    if (action === 'pageview' && k > 0) page = rng.pick(PAGES);
    events.push(eventPair(spec, rng, visitor, page, action, t, k === 0));
  }
  const state = summaryOf(spec, visitor, events);
  const tags = TAGS.filter((tag) => rng.next() < tag.share).map((tag): SessionTag => ({
    project_id: spec.projectId,
    session_id: visitor.sessionId,
    tag: tag.tag,
    source: 'manual',
    tagged_at: state.updated_at,
    removed: false,
    changed_at: state.updated_at,
  }));
  return { state, events, tags };
}

function newBatch(): DatasetBatch {
  return { raw: [], enriched: [], sessions: [], tags: [], actions: [] };
}

/** Latest last_seen per action of the batch, what the sessionizer's touchActions would record. */
function actionTouches(projectId: string, enriched: EnrichedEvent[]): ActionTouch[] {
  const latest = new Map<string, number>();
  for (const e of enriched) latest.set(e.action, Math.max(latest.get(e.action) ?? 0, e.timestamp));
  return [...latest].map(([action, last_seen]) => ({ project_id: projectId, action, last_seen }));
}

/**
 * Sorts the batch's events by time: ingest writes concurrent sessions interleaved, not one
 * session after another, and the stores should see that order.
 */
function sealBatch(projectId: string, batch: DatasetBatch, pairs: GeneratedSession['events']): DatasetBatch {
  pairs.sort((a, b) => a.raw.timestamp - b.raw.timestamp);
  batch.raw = pairs.map((p) => p.raw);
  batch.enriched = pairs.map((p) => p.enriched);
  batch.actions = actionTouches(projectId, batch.enriched);
  return batch;
}

/**
 * Yields batches of about `batchEvents` events (whole sessions), oldest sessions first, and
 * fills `facts` as it goes; `facts` is complete once the generator is exhausted.
 */
export function* generateDataset(spec: DatasetSpec, facts: DatasetFacts): Generator<DatasetBatch> {
  const rng = new SeededRandom(spec.seed);
  // Sessions start uniformly over the 30 days; a session lasts at most ~40 min (20 events), so
  // starting them 2 h before the end keeps every event in the past.
  const starts = new Float64Array(spec.sessions);
  for (let i = 0; i < spec.sessions; i++)
    starts[i] = Math.floor(spec.endMs - SPAN_MS + rng.next() * (SPAN_MS - 2 * 3_600_000));
  starts.sort();
  const perSession = Math.floor(spec.events / spec.sessions);
  const remainder = spec.events % spec.sessions;
  const sampleEvery = Math.max(1, Math.floor(spec.sessions / SAMPLE_SIZE));
  const actions = new Set<string>();
  let batch = newBatch();
  let pairs: GeneratedSession['events'] = [];
  for (let i = 0; i < spec.sessions; i++) {
    const count = perSession + (i < remainder ? 1 : 0);
    const s = generateSession(spec, rng, starts[i]!, count);
    batch.sessions.push(s.state);
    batch.tags.push(...s.tags);
    pairs.push(...s.events);
    for (const e of s.events) {
      actions.add(e.raw.action);
      facts.payloadBytes += JSON.stringify(e.raw.payload).length;
    }
    for (const t of s.tags) (facts.tagTimes[t.tag] ??= []).push(t.tagged_at);
    if (i % sampleEvery === 0 && facts.sessionSample.length < SAMPLE_SIZE)
      facts.sessionSample.push({ session_id: s.state.session_id, events: count });
    facts.events += count;
    facts.sessions++;
    if (pairs.length >= spec.batchEvents) {
      yield sealBatch(spec.projectId, batch, pairs);
      batch = newBatch();
      pairs = [];
    }
  }
  if (pairs.length > 0) yield sealBatch(spec.projectId, batch, pairs);
  facts.actions = [...actions].sort();
}

export function emptyFacts(): DatasetFacts {
  return { sessionSample: [], actions: [], tagTimes: {}, payloadBytes: 0, events: 0, sessions: 0 };
}
