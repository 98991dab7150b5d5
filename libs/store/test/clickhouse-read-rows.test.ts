// Issue 15, target 3: on a big ClickHouse store a point read stays a point read, and a page of
// sessions reads a few granules. Proved by the rows the engine plans to read for the very queries
// the store sends (EXPLAIN ESTIMATE), not by how fast the stand-in is, so a schema change that
// turns one session's events or the page of sessions into a scan fails here.
import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { createClient, type ClickHouseClient } from '@clickhouse/client';
import { clickhouseUrl, requireEngine } from '@spoor/testkit';
import { openStore, type Store } from '../src/index.js';
import { enriched, session, T0 } from './store-fixtures.js';

const P = 'p-big';
/** ClickHouse reads whole granules of 8,192 rows. */
const GRANULE = 8192;
const SEED_SESSIONS = 100;
const EVENTS_PER_SESSION = 20;
const COPIES = 500;
/** Sessions start every 52 s over ~30 days (50,000 of them), their events 2 minutes apart. */
const SESSION_EVERY_MS = 52_000;
const COPY_SHIFT_MS = SEED_SESSIONS * SESSION_EVERY_MS;

/** Event ids lead with their time, as ingest's UUIDv7 ids do: a session's ids sit together in the key order. */
const eventId = (ts: number, k: number, j: number) => `${ts.toString(16).padStart(16, '0')}-${k}-${j}`;

describe('ClickHouse reads on 1,000,000 events: rows the engine read', function () {
  this.timeout(600_000);
  let url: string | null;
  let database: string;
  let admin: ClickHouseClient;
  let store: Store;
  const selects: Array<{ query: string; params: Record<string, unknown> }> = [];

  /**
   * Rows the SELECTs that `fn` makes read, by the engine's own plan: `EXPLAIN ESTIMATE` of each
   * query as it was sent (its rows to read once the primary keys and skip indexes pruned the
   * parts). The chDB stand-in's X-ClickHouse-Summary counts result rows, not rows read, so the
   * plan is the proof that holds on both.
   */
  async function rowsRead(fn: () => Promise<unknown>): Promise<number> {
    selects.length = 0;
    await fn();
    expect(selects.length).to.be.greaterThan(0);
    let rows = 0;
    for (const s of [...selects]) rows += await estimate(s.query, s.params);
    return rows;
  }

  async function estimate(query: string, params: Record<string, unknown>): Promise<number> {
    const plan = await (
      await admin.query({ query: `EXPLAIN ESTIMATE ${query}`, query_params: params, format: 'JSONEachRow' })
    ).json<{ rows: string }>();
    return plan.reduce((sum, p) => sum + Number(p.rows), 0);
  }

  before(async function () {
    url = await clickhouseUrl();
    requireEngine(this, url, 'clickhouse');
    database = `spoor_rows_${randomBytes(6).toString('hex')}`;
    store = await openStore({
      kind: 'clickhouse',
      url: url!,
      database,
      onSelect: (query, params) => selects.push({ query, params }),
    });
    await store.migrate();
    admin = createClient({ url: url!, compression: { request: false, response: false } });
    // 100 sessions through the store, then 500 copies of them shifted in time by SQL: 1,000,000
    // events in 50,000 sessions with the store's own column shapes.
    const seed = [];
    for (let k = 0; k < SEED_SESSIONS; k++) {
      for (let j = 0; j < EVENTS_PER_SESSION; j++) {
        const ts = T0 + k * SESSION_EVERY_MS + j * 120_000;
        seed.push(
          enriched({
            project_id: P,
            event_id: eventId(ts, k, j),
            session_id: `s-${k}`,
            timestamp: ts,
            client_timestamp: ts,
            received_at: ts,
          }),
        );
      }
    }
    await store.events.insertEnriched(seed);
    await store.sessions.upsert(
      Array.from({ length: SEED_SESSIONS }, (_, k) =>
        session({
          project_id: P,
          session_id: `s-${k}`,
          first_event_at: T0 + k * SESSION_EVERY_MS,
          last_event_at: T0 + k * SESSION_EVERY_MS + (EVENTS_PER_SESSION - 1) * 120_000,
          event_count: EVENTS_PER_SESSION,
        }),
      ),
    );
    const shifted = `toInt64(timestamp + n.number * ${COPY_SHIFT_MS})`;
    await admin.command({
      query: `INSERT INTO ${database}.enriched_events
        SELECT e.* REPLACE (
          concat(lower(hex(toUInt64(${shifted}))), substring(event_id, 17)) AS event_id,
          concat(session_id, '-', toString(n.number)) AS session_id,
          ${shifted} AS timestamp)
        FROM ${database}.enriched_events AS e, numbers(1, ${COPIES - 1}) AS n
        WHERE e.project_id = '${P}'`,
    });
    await admin.command({
      query: `INSERT INTO ${database}.sessions
        SELECT s.* REPLACE (
          concat(session_id, '-', toString(n.number)) AS session_id,
          toInt64(first_event_at + n.number * ${COPY_SHIFT_MS}) AS first_event_at,
          toInt64(last_event_at + n.number * ${COPY_SHIFT_MS}) AS last_event_at)
        FROM ${database}.sessions AS s, numbers(1, ${COPIES - 1}) AS n
        WHERE s.project_id = '${P}'`,
    });
    await admin.command({ query: `OPTIMIZE TABLE ${database}.enriched_events FINAL` });
    await admin.command({ query: `OPTIMIZE TABLE ${database}.enriched_events_by_session FINAL` });
    await admin.command({ query: `OPTIMIZE TABLE ${database}.sessions FINAL` });
  });

  after(async function () {
    if (!url) return;
    await store?.close();
    await admin?.command({ query: `DROP DATABASE IF EXISTS ${database}` });
    await admin?.close();
  });

  it('holds the million events', async function () {
    expect(await store.events.countEnriched(P)).to.equal(SEED_SESSIONS * EVENTS_PER_SESSION * COPIES);
    expect(await store.sessions.count(P)).to.equal(SEED_SESSIONS * COPIES);
  });

  it('reads one session and its twenty events from a few granules, not the table', async function () {
    const sid = 's-42-250';
    let found: Awaited<ReturnType<Store['sessions']['get']>> = null;
    const sessionRows = await rowsRead(async () => (found = await store.sessions.get(P, sid)));
    expect(found).to.not.equal(null);
    const within = { from: found!.first_event_at, to: found!.last_event_at };
    let events: Awaited<ReturnType<Store['events']['sessionEvents']>> = [];
    const eventRows = await rowsRead(async () => (events = await store.events.sessionEvents(P, sid, within)));
    // The event ids come from the index table (EXPLAIN ESTIMATE does not count an IN subquery's table).
    const indexRows = await estimate(
      `SELECT event_id FROM ${database}.enriched_events_by_session WHERE project_id = {project_id:String} AND session_id = {session_id:String}`,
      { project_id: P, session_id: sid },
    );
    console.log(
      `      one session: ${sessionRows} rows read; its ${events.length} events: ${eventRows} rows, their ids ${indexRows} rows (of 1,000,000)`,
    );
    expect(events).to.have.length(EVENTS_PER_SESSION);
    expect(sessionRows).to.be.at.most(GRANULE);
    expect(eventRows).to.be.at.most(2 * GRANULE);
    expect(indexRows).to.be.at.most(2 * GRANULE);
  });

  it('lists the newest 1,000 sessions from a few granules, not every summary of the project', async function () {
    let page: Awaited<ReturnType<Store['sessions']['list']>> = [];
    const rows = await rowsRead(async () => (page = await store.sessions.list(P, { limit: 1000 })));
    // What the page read before the projections of step 9: every summary of the project, under FINAL.
    const before = await estimate(
      `SELECT session_id, first_event_at, last_event_at, event_count FROM ${database}.sessions FINAL
       WHERE project_id = {project_id:String} ORDER BY last_event_at DESC, session_id LIMIT 1000`,
      { project_id: P },
    );
    console.log(
      `      sessions?limit=1000: ${rows} rows read in ${selects.length} queries (the table under FINAL: ${before})`,
    );
    expect(page).to.have.length(1000);
    expect(page[0]!.session_id).to.equal(`s-${SEED_SESSIONS - 1}-${COPIES - 1}`);
    expect(page.map((x) => x.last_event_at)).to.deep.equal([...page.map((x) => x.last_event_at)].sort((a, b) => b - a));
    expect(rows).to.be.at.most(4 * GRANULE);
  });

  it('lists a window ending a day back from a few granules too', async function () {
    const newest = T0 + (SEED_SESSIONS * COPIES - 1) * SESSION_EVERY_MS;
    const window = { window_start: newest - 3 * 86_400_000, window_end: newest - 86_400_000, limit: 1000 };
    let page: Awaited<ReturnType<Store['sessions']['list']>> = [];
    const rows = await rowsRead(async () => (page = await store.sessions.list(P, window)));
    console.log(
      `      sessions?limit=1000 in a window ending a day back: ${rows} rows read in ${selects.length} queries`,
    );
    expect(page).to.have.length(1000);
    expect(page.every((x) => x.last_event_at >= window.window_start && x.last_event_at < window.window_end)).to.equal(
      true,
    );
    expect(rows).to.be.at.most(4 * GRANULE);
  });
});
