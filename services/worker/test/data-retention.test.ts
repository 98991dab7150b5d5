import { expect } from 'chai';
import { join } from 'node:path';
import { MemoryKv } from '@spoor/kv';
import { createLogger } from '@spoor/service-log';
import {
  RECORD_KINDS,
  type EnrichedEvent,
  type Overview,
  type RawEvent,
  type SessionState,
  type TransitionMatrix,
} from '@spoor/schemas';
import { openStore, type Store } from '@spoor/store';
import { makeTempDir } from '@spoor/testkit';
import { expireProjectData } from '../src/data-retention.js';
import { buildOverview } from '../src/overview-builder.js';
import { buildTransitions } from '../src/result-jobs.js';

const DAY = 86_400_000;
const T0 = Date.UTC(2026, 0, 1);

function event(projectId: string, day: number): { raw: RawEvent; enriched: EnrichedEvent } {
  const raw: RawEvent = {
    project_id: projectId,
    event_id: `${projectId}-d${day}`,
    project: projectId,
    origin: 'https://acme.example',
    action: 'click',
    timestamp: T0 + day * DAY,
    client_timestamp: T0 + day * DAY,
    sent_at: null,
    received_at: T0 + day * DAY,
    payload: {},
    session_id: `s-d${day}`,
    url: null,
    referrer: null,
    ip: '203.0.113.9',
    user_agent: 'test',
  };
  const none = { name: null, version: null };
  return {
    raw,
    enriched: {
      ...raw,
      session_id: `s-d${day}`,
      geo: { country: null, region: null, city: null, latitude: null, longitude: null },
      browser: none,
      os: none,
      device: { type: null, vendor: null, model: null },
      bot: false,
      path: null,
      query: {},
      utm: { source: null, medium: null, campaign: null, term: null, content: null },
    },
  };
}

function session(projectId: string, day: number): SessionState {
  const at = T0 + day * DAY;
  return {
    project_id: projectId,
    session_id: `s-d${day}`,
    first_event_at: at,
    last_event_at: at,
    duration_ms: 0,
    event_count: 1,
    actions: { click: 1 },
    entry_url: null,
    exit_url: null,
    page_count: 0,
    referrer: null,
    utm: { source: null, medium: null, campaign: null, term: null, content: null },
    browser: { name: null, version: null },
    os: { name: null, version: null },
    device: { type: null, vendor: null, model: null },
    geo: { country: null, region: null, city: null, latitude: null, longitude: null },
    attributes: {},
    tags: [],
    classification: null,
    seen: [],
    updated_at: at,
  };
}

/** The daily retention pass on a real DuckDB store, its clock moved forward day by day. */
describe('expireProjectData', function () {
  this.timeout(30_000);
  let store: Store;
  const kv = new MemoryKv();
  const logger = createLogger('test', 'error', () => {});
  const days = async (projectId: string) => ({
    events: (await store.events.listEnriched(projectId, { limit: 100 })).map((e) => e.event_id),
    sessions: (await store.sessions.list(projectId, { limit: 100 })).map((s) => s.session_id).sort(),
  });
  const pass = (now: number, instance = 'w1') =>
    expireProjectData({ store, kv, clock: () => now, instance, logger, busRetentionMs: DAY });

  before(async () => {
    store = await openStore({ kind: 'duckdb', path: join(await makeTempDir('data-retention'), 'spoor.duckdb') });
    await store.migrate();
    const base = {
      origin: 'https://acme.example',
      account_id: 'a',
      verified: false,
      verification_token: 't',
      created_at: T0,
    };
    await store.projects.create({ ...base, project_id: 'p-week', project: 'week/web', retention_days: 7 });
    await store.projects.create({ ...base, project_id: 'p-forever', project: 'forever/web' });
    for (const p of ['p-week', 'p-forever']) {
      await store.events.insertEvents([0, 1, 2].map((d) => event(p, d)));
      await store.sessions.upsert([0, 1, 2].map((d) => session(p, d)));
    }
  });
  after(async () => store?.close());

  it('deletes, day by day, what is older than retention_days, once a day across workers', async () => {
    // Day 7 + 1 h: day 0's rows are 7 days and 1 h old, past the cut; day 1's are not.
    expect(await pass(T0 + 7 * DAY + 3_600_000)).to.equal(true);
    expect(await days('p-week')).to.deep.equal({ events: ['p-week-d1', 'p-week-d2'], sessions: ['s-d1', 's-d2'] });
    expect(await pass(T0 + 7 * DAY + 7_200_000, 'w2'), 'the same day, another worker').to.equal(false);

    // The next day's pass takes day 1's rows; day 2's are younger than 7 days and stay.
    expect(await pass(T0 + 8 * DAY + 60_000, 'w2')).to.equal(true);
    expect(await days('p-week')).to.deep.equal({ events: ['p-week-d2'], sessions: ['s-d2'] });
    expect(await days('p-forever'), 'a project without retention').to.deep.equal({
      events: ['p-forever-d0', 'p-forever-d1', 'p-forever-d2'],
      sessions: ['s-d0', 's-d1', 's-d2'],
    });
  });

  it('recounts the stored overviews and matrices whose window held expired events, and only those (issue 43)', async () => {
    const P = 'p-month';
    await store.projects.create({
      origin: 'https://acme.example',
      account_id: 'a',
      verified: false,
      verification_token: 't',
      created_at: T0,
      project_id: P,
      project: 'month/web',
      retention_days: 30,
    });
    const at = T0 + 40 * DAY;
    await store.events.insertEvents([0, 1, 2].map((d) => event(P, 40 + d)));
    await store.sessions.upsert([0, 1, 2].map((d) => session(P, 40 + d)));
    const project = (await store.projects.get(P))!;
    const all = { start: at, end: at + 3 * DAY };
    const last = { start: at + 2 * DAY, end: at + 3 * DAY };
    for (const w of [all, last]) {
      await buildOverview(store, project, w, `job-${w.start}`, at);
      await buildTransitions(store, project, w, `job-${w.start}`, at, at);
    }
    const stored = async (w: { start: number; end: number }) => {
      const id = `${w.start}-${w.end}`;
      const o = (await store.records.get<Overview>(RECORD_KINDS.overview, P, id))!.data;
      const m = (await store.records.get<TransitionMatrix>(RECORD_KINDS.transitions, P, id))!;
      return { events: o.events, sessions: o.sessions, matrix: m.data.sessions, job: m.data.job_id, sort: m.sort_key };
    };
    expect(await stored(all)).to.deep.equal({ events: 3, sessions: 3, matrix: 3, job: `job-${at}`, sort: at });
    // 30 days after day 41 + 1 h: days 40 and 41 go; the three-day window is counted again, the last day's is not.
    expect(await pass(at + 31 * DAY + 3_600_000, 'w3')).to.equal(true);
    expect(await stored(all)).to.deep.equal({ events: 1, sessions: 1, matrix: 1, job: `job-${at}`, sort: at });
    expect((await store.records.get<Overview>(RECORD_KINDS.overview, P, `${last.start}-${last.end}`))!.data).to.include(
      { events: 1, created_at: at },
    );
  });
});

describe('expireProjectData: the audit trail (issue 45, item 7)', function () {
  this.timeout(30_000);
  let store: Store;
  const logger = createLogger('test', 'error', () => {});
  const entry = (projectId: string, id: string, day: number) => ({
    project_id: projectId,
    entry_id: id,
    made_at: T0 + day * DAY,
    actor_id: 'a',
    actor_email: null,
    via: 'token' as const,
    api_key_name: null,
    action: 'rule.created',
    target_kind: 'rule',
    target_id: 'r',
    target_name: null,
    changes: {},
  });
  const listed = async (projectId: string) => (await store.audit.list(projectId, { limit: 10 })).map((e) => e.entry_id);

  before(async () => {
    store = await openStore({ kind: 'duckdb', path: join(await makeTempDir('audit-retention'), 'spoor.duckdb') });
    await store.migrate();
    const base = { origin: 'https://acme.example', account_id: 'a', verified: false, verification_token: 't' };
    await store.projects.create({
      ...base,
      project_id: 'p-week',
      project: 'week/web',
      retention_days: 7,
      created_at: T0,
    });
    await store.projects.create({ ...base, project_id: 'p-forever', project: 'forever/web', created_at: T0 });
    await store.audit.append([
      entry('p-week', 'old', 1),
      entry('p-week', 'new', 6),
      entry('p-forever', 'old', 1),
      entry('p-forever', 'new', 6),
    ]);
  });
  after(async () => store?.close());

  it("deletes the entries older than the project's retention days with its events, and keeps a project's without retention", async () => {
    // Day 9 + 1 h: the cut is day 2 + 1 h; day 1's entry goes, day 6's stays.
    expect(
      await expireProjectData({
        store,
        kv: new MemoryKv(),
        clock: () => T0 + 9 * DAY + 3_600_000,
        instance: 'w1',
        logger,
        busRetentionMs: DAY,
      }),
    ).to.equal(true);
    expect(await listed('p-week')).to.deep.equal(['new']);
    expect(await listed('p-forever')).to.deep.equal(['new', 'old']);
  });
});
