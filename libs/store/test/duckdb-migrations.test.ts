// An embedded store made by an earlier release keeps its data through the later steps: step 6
// copies raw_events and enriched_events into tables keyed by a hash of (project_id, event_id),
// step 7 merges the two into one row per event (`events`) with the old names as views, step 9
// takes the key off `events` and remembers the latest events' keys in `event_keys`.
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { makeTempDir } from '@spoor/testkit';
import { expect } from 'chai';
import { ENRICHED_EVENT_COLUMNS, RAW_EVENT_COLUMNS, enrichedEventToRow, rawEventToRow } from '../src/event-row.js';
import { DUCKDB_MIGRATIONS_TABLE, duckdbMigrations, EVENT_KEY } from '../src/duckdb/migrations.js';
import { appendEventRow, EVENTS_TABLE, eventHalves, eventKey, type EventHalves } from '../src/duckdb/events-table.js';
import { openStore } from '../src/index.js';
import { SESSION_COLUMNS, sessionToRow } from '../src/session-row.js';
import { ADD_DERIVED_SESSION_COLUMNS } from '../src/duckdb/session-derived.js';
import { T0, enriched, raw, session, statsSpec } from './store-fixtures.js';

const cell = (v: unknown) =>
  (typeof v === 'object' && v !== null ? JSON.stringify(v) : v) as string | number | boolean | null;

const ids = (events: Array<{ event_id: string }>) => events.map((e) => e.event_id);

type Connection = Awaited<ReturnType<DuckDBInstance['connect']>>;

/** A row as an earlier release wrote it; `keyed`: with the event_key of step 6 on, computed as the release did. */
async function insertRow(
  c: Connection,
  table: string,
  cols: readonly string[],
  row: Record<string, unknown>,
  keyed = false,
) {
  const marks = cols.map((_, i) => `$${i + 1}`).join(', ');
  const names = cols.map((n) => `"${n}"`).join(', ');
  const sql = keyed
    ? `INSERT INTO ${table} (${names}, event_key) SELECT *, ${EVENT_KEY} FROM (VALUES (${marks})) v(${names})`
    : `INSERT INTO ${table} (${names}) VALUES (${marks})`;
  await c.run(
    sql,
    cols.map((n) => cell(row[n])),
  );
}

/** Rows into `events` as the release's appender wrote them. */
async function appendEvents(c: Connection, rows: readonly EventHalves[]): Promise<void> {
  const appender = await c.createAppender('events');
  for (const r of rows) appendEventRow(appender, r);
  appender.flushSync();
  appender.closeSync();
}

/** A store as the release with migrations up to `version` left it; close it before opening the store. */
async function storeAtStep(path: string, version: number): Promise<{ c: Connection; close: () => void }> {
  const db = await DuckDBInstance.create(path);
  const c = await db.connect();
  await c.run(DUCKDB_MIGRATIONS_TABLE);
  for (const m of duckdbMigrations.filter((s) => s.version <= version)) {
    for (const sql of m.statements) await c.run(sql);
    await c.run('INSERT INTO schema_migrations VALUES ($1, $2, $3)', [m.version, m.name, T0]);
  }
  return {
    c,
    close: () => {
      c.closeSync();
      db.closeSync();
    },
  };
}

describe('DuckDB migrations', function () {
  let dir: string;
  beforeEach(async function () {
    dir = await makeTempDir('spoor-migrate-');
  });
  afterEach(async function () {
    await rm(dir, { recursive: true, force: true });
  });

  it('keeps the events of a step-5 store through the re-keying, and still stores a repeat once', async function () {
    const path = join(dir, 'spoor.duckdb');
    const { c, close } = await storeAtStep(path, 5);
    const before = [raw({ event_id: 'kept-1' }), raw({ event_id: 'kept-2', project_id: 'p-b', timestamp: T0 + 1 })];
    for (const e of before) {
      await insertRow(c, 'raw_events', RAW_EVENT_COLUMNS, rawEventToRow(e));
      await insertRow(
        c,
        'enriched_events',
        ENRICHED_EVENT_COLUMNS,
        enrichedEventToRow(enriched({ ...e, session_id: 's-1' })),
      );
    }
    close();

    const store = await openStore({ kind: 'duckdb', path });
    try {
      await store.migrate();
      expect((await store.events.listRaw('p-a', { limit: 10 })).map((e) => e.event_id)).to.deep.equal(['kept-1']);
      expect((await store.events.listEnriched('p-b', { limit: 10 }))[0]).to.deep.include({
        event_id: 'kept-2',
        timestamp: T0 + 1,
        payload: { n: 1 },
      });

      // The same ids again (a replay), beside a new one and the same id in another project.
      await store.events.insertEvents([
        { raw: before[0]!, enriched: enriched({ event_id: 'kept-1' }) },
        { raw: raw({ event_id: 'new-1' }), enriched: enriched({ event_id: 'new-1' }) },
        {
          raw: raw({ event_id: 'kept-1', project_id: 'p-c' }),
          enriched: enriched({ event_id: 'kept-1', project_id: 'p-c' }),
        },
      ]);
      await store.events.insertRaw([before[1]!]);
      expect(await store.events.countRaw('p-a')).to.equal(2);
      expect(await store.events.countEnriched('p-a')).to.equal(2);
      expect(await store.events.countRaw('p-b')).to.equal(1);
      expect(await store.events.countEnriched('p-c')).to.equal(1);
    } finally {
      await store.close();
    }
  });

  it('keeps every event of a step-8 store, drops the key of `events`, and remembers the events for repeats', async function () {
    const path = join(dir, 'spoor.duckdb');
    const { c, close } = await storeAtStep(path, 8);
    const rows = [
      { raw: raw({ event_id: 'm1' }), enriched: enriched({ event_id: 'm1', session_id: 's-1' }) },
      { raw: raw({ event_id: 'm2', timestamp: T0 + 1 }), enriched: null },
      { raw: null, enriched: enriched({ event_id: 'm3', timestamp: T0 + 2, session_id: 's-1' }) },
    ];
    await appendEvents(
      c,
      rows.map((r) => eventHalves(r.raw, r.enriched)),
    );
    close();

    const store = await openStore({ kind: 'duckdb', path });
    try {
      await store.migrate();
      expect(ids(await store.events.listRaw('p-a', { limit: 10 }))).to.deep.equal(['m1', 'm2']);
      expect(ids(await store.events.listEnriched('p-a', { limit: 10 }))).to.deep.equal(['m1', 'm3']);
      // Repeats of all three, whole: each stored once, the halves m2 and m3 lacked filled in.
      await store.events.insertEvents(
        ['m1', 'm2', 'm3'].map((id, i) => ({
          raw: raw({ event_id: id, timestamp: T0 + i }),
          enriched: enriched({ event_id: id, timestamp: T0 + i, session_id: 's-1' }),
        })),
      );
      expect(ids(await store.events.listRaw('p-a', { limit: 10 }))).to.deep.equal(['m1', 'm2', 'm3']);
      expect(ids(await store.events.listEnriched('p-a', { limit: 10 }))).to.deep.equal(['m1', 'm2', 'm3']);
    } finally {
      await store.close();
    }
    const db = await DuckDBInstance.create(path);
    const c2 = await db.connect();
    try {
      const constraints = (
        await c2.runAndReadAll(
          `SELECT table_name, constraint_type FROM duckdb_constraints() WHERE table_name IN ('events', 'event_keys') AND constraint_type = 'PRIMARY KEY'`,
        )
      ).getRowObjectsJS();
      expect(constraints.map((r) => r.table_name)).to.deep.equal(['event_keys']);
      const described = (await c2.runAndReadAll('DESCRIBE events')).getRowObjectsJS().map((r) => r.column_name);
      expect(described).to.deep.equal(EVENTS_TABLE.map(([name]) => name));
    } finally {
      c2.closeSync();
      db.closeSync();
    }
  });

  it("builds a step-9 store's hourly rollups from its events, so a window of whole hours answers what they hold", async function () {
    const path = join(dir, 'spoor.duckdb');
    const { c, close } = await storeAtStep(path, 9);
    // One session across two hours (pageview → click | → signup), one in the second hour, a bot.
    const ev = (id: string, sid: string, action: string, at: number, over: Record<string, unknown> = {}) =>
      eventHalves(null, enriched({ event_id: id, session_id: sid, action, timestamp: at, path: '/', ...over }));
    const rows = [
      ev('r1', 's-1', 'pageview', T0 + 3_000_000),
      ev('r2', 's-1', 'click', T0 + 3_500_000),
      ev('r3', 's-1', 'signup', T0 + 3_700_000),
      ev('r4', 's-2', 'pageview', T0 + 4_000_000, { ip: '198.51.100.2' }),
      ev('r5', 's-3', 'pageview', T0 + 4_100_000, { bot: true }),
    ];
    await appendEvents(c, rows);
    close();

    const store = await openStore({ kind: 'duckdb', path });
    try {
      await store.migrate();
      const w = { start: T0, end: T0 + 2 * 3_600_000 };
      const a = await store.analytics.aggregate('p-a', w, 10);
      expect({ events: a.events, visitors: a.visitors, actions: a.actions, pages: a.pages }).to.deep.equal({
        events: 4,
        visitors: 2,
        actions: [
          { name: 'pageview', count: 2 },
          { name: 'click', count: 1 },
          { name: 'signup', count: 1 },
        ],
        pages: [{ name: '/', count: 2 }],
      });
      expect((await store.analytics.transitions('p-a', w)).cells).to.deep.equal([
        { from: '$start', to: 'pageview', count: 2 },
        { from: 'click', to: 'signup', count: 1 },
        { from: 'pageview', to: '$end', count: 1 },
        { from: 'pageview', to: 'click', count: 1 },
        { from: 'signup', to: '$end', count: 1 },
      ]);
    } finally {
      await store.close();
    }
    // The figures above came from the rollups: the migration filled them, and nothing was left to rebuild.
    const db = await DuckDBInstance.create(path);
    const c2 = await db.connect();
    try {
      const count = async (sql: string) => Number((await c2.runAndReadAll(sql)).getRowObjectsJS()[0]!.n);
      expect(await count('SELECT sum(events) AS n FROM rollup_events')).to.equal(4);
      expect(await count('SELECT count(*) AS n FROM rollup_segments')).to.equal(3);
      expect(await count('SELECT count(*) AS n FROM rollup_dirty')).to.equal(0);
    } finally {
      c2.closeSync();
      db.closeSync();
    }
  });

  it("indexes a step-10 store's sessions by id; a session id in two projects reads as each project's", async function () {
    const path = join(dir, 'spoor.duckdb');
    const { close } = await storeAtStep(path, 10);
    close();
    let store = await openStore({ kind: 'duckdb', path });
    const shared = (p: string, n: number) =>
      session({ project_id: p, session_id: 'same-id', event_count: n, updated_at: n, last_event_at: T0 + n });
    try {
      await store.migrate();
      await store.sessions.upsert([
        shared('p-a', 3),
        shared('p-b', 5),
        session({ project_id: 'p-a', session_id: 'other' }),
      ]);
      await store.sessions.upsert([shared('p-a', 4)]);
      expect((await store.sessions.get('p-a', 'same-id'))?.event_count).to.equal(4);
      expect((await store.sessions.get('p-b', 'same-id'))?.event_count).to.equal(5);
      expect(await store.sessions.get('p-c', 'same-id')).to.equal(null);
      await store.erasure.eraseVisitor('p-a', { session_id: 'same-id' });
      expect(await store.sessions.get('p-a', 'same-id')).to.equal(null);
      expect((await store.sessions.get('p-b', 'same-id'))?.event_count).to.equal(5);
    } finally {
      await store.close();
    }
    const db = await DuckDBInstance.create(path);
    const c = await db.connect();
    try {
      const indexes = (await c.runAndReadAll("SELECT index_name FROM duckdb_indexes() WHERE table_name = 'sessions'"))
        .getRowObjectsJS()
        .map((r) => r.index_name);
      expect(indexes).to.deep.equal(['sessions_by_session_id']);
    } finally {
      c.closeSync();
      db.closeSync();
    }
    // Reopened, step 11 is not applied again (a second CREATE INDEX would fail) and reads still answer.
    store = await openStore({ kind: 'duckdb', path });
    try {
      await store.migrate();
      expect((await store.sessions.get('p-b', 'same-id'))?.event_count).to.equal(5);
    } finally {
      await store.close();
    }
  });

  it("gives a step-14 store's sessions their referrer host and entry and exit pages, and each later write its own", async function () {
    const path = join(dir, 'spoor.duckdb');
    const { c, close } = await storeAtStep(path, 14);
    const old = session({
      session_id: 's-old',
      referrer: 'https://news.example.org:8443/post?id=1',
      entry_url: 'https://acme.example/docs/start?x=1#top',
      exit_url: 'https://acme.example',
    });
    await insertRow(c, 'sessions', SESSION_COLUMNS, sessionToRow(old));
    close();
    const store = await openStore({ kind: 'duckdb', path });
    const by = async (dimension: 'referrer' | 'entry_page' | 'exit_page') =>
      (
        await store.stats.query(
          'p-a',
          statsSpec({ window: { start: T0, end: T0 + 3_600_000 }, metrics: ['sessions'], dimensions: [dimension] }),
        )
      ).rows.map((r) => [r.dimensions[0], r.metrics[0]]);
    try {
      await store.migrate();
      expect(await by('referrer')).to.deep.equal([['news.example.org', 1]]);
      expect(await by('entry_page')).to.deep.equal([['/docs/start', 1]]);
      expect(await by('exit_page')).to.deep.equal([['/', 1]]);
      // A new session, and the old one summed up again with another referrer, each as written.
      await store.sessions.upsert([
        session({ session_id: 's-new', referrer: 'newsletter', exit_url: 'https://acme.example/b/' }),
        { ...old, referrer: 'https://www.example.com/', updated_at: old.updated_at + 1 },
      ]);
      expect(await by('referrer')).to.deep.equal([
        ['newsletter', 1],
        ['www.example.com', 1],
      ]);
      expect(await by('exit_page')).to.deep.equal([
        ['/', 1],
        ['/b/', 1],
      ]);
    } finally {
      await store.close();
    }
  });
  it("builds a step-16 store's stats rollups with each session's dimensions and each visitor's previous hour", async function () {
    const path = join(dir, 'spoor.duckdb');
    const { c, close } = await storeAtStep(path, 16);
    const H = 3_600_000;
    // Visitor A on /docs in hours 0, 2 and 3 (session s-a, Firefox); B on /docs in hour 2 (s-b, Chrome).
    const ev = (id: string, sid: string, at: number, ip: string) =>
      eventHalves(
        null,
        enriched({ event_id: id, session_id: sid, action: 'pageview', timestamp: at, path: '/docs', ip }),
      );
    await appendEvents(c, [
      ev('a1', 's-a', T0 + 10_000, '198.51.100.1'),
      ev('a2', 's-a', T0 + 2 * H + 10_000, '198.51.100.1'),
      ev('a3', 's-a', T0 + 3 * H + 10_000, '198.51.100.1'),
      ev('b1', 's-b', T0 + 2 * H + 20_000, '198.51.100.2'),
    ]);
    const firefox = session({ session_id: 's-a', first_event_at: T0 + 10_000, last_event_at: T0 + 3 * H + 10_000 });
    await insertRow(
      c,
      'sessions',
      SESSION_COLUMNS,
      sessionToRow({ ...firefox, browser: { name: 'Firefox', version: null } }),
    );
    await insertRow(
      c,
      'sessions',
      SESSION_COLUMNS,
      sessionToRow(
        session({
          session_id: 's-b',
          first_event_at: T0 + 2 * H + 20_000,
          last_event_at: T0 + 2 * H + 20_000,
          browser: { name: 'Chrome', version: null },
        }),
      ),
    );
    // The columns the release's upsert wrote with them (session-derived.ts).
    await c.run(ADD_DERIVED_SESSION_COLUMNS[ADD_DERIVED_SESSION_COLUMNS.length - 1]!);
    close();
    const store = await openStore({ kind: 'duckdb', path });
    const top = async (dimension: 'page' | 'browser', start: number) =>
      (
        await store.stats.query(
          'p-a',
          statsSpec({ window: { start, end: T0 + 4 * H }, metrics: ['visitors'], dimensions: [dimension] }),
        )
      ).rows.map((r) => [r.dimensions[0], r.metrics[0]]);
    try {
      await store.migrate();
      // From hour 1: A (seen before, in hour 0) once although in two hours, and B.
      expect(await top('page', T0 + H)).to.deep.equal([['/docs', 2]]);
      expect(await top('browser', T0 + H)).to.deep.equal([
        ['Chrome', 1],
        ['Firefox', 1],
      ]);
      // From hour 3: A alone.
      expect(await top('page', T0 + 3 * H)).to.deep.equal([['/docs', 1]]);
      expect(await top('browser', T0 + 3 * H)).to.deep.equal([['Firefox', 1]]);
    } finally {
      await store.close();
    }
  });
});

describe('DuckDB events table (step 7: one row per event)', function () {
  let dir: string;
  beforeEach(async function () {
    dir = await makeTempDir('spoor-events-table-');
  });
  afterEach(async function () {
    await rm(dir, { recursive: true, force: true });
  });

  it('keeps pairs, raw-only and enriched-only rows of a step-6 store, each with its own ip, url and referrer', async function () {
    const path = join(dir, 'spoor.duckdb');
    const { c, close } = await storeAtStep(path, 6);
    const pairRaw = raw({
      event_id: 'pair',
      ip: '203.0.113.77',
      url: 'https://acme.example/a?x=1#frag',
      referrer: 'https://ref.example/',
    });
    const pairEnriched = enriched({ event_id: 'pair', ip: '203.0.113.0', referrer: null });
    const rawOnly = raw({ event_id: 'raw-only', timestamp: T0 + 1 });
    const enrichedOnly = enriched({ event_id: 'enriched-only', timestamp: T0 + 2 });
    await insertRow(c, 'raw_events', RAW_EVENT_COLUMNS, rawEventToRow(pairRaw), true);
    await insertRow(c, 'enriched_events', ENRICHED_EVENT_COLUMNS, enrichedEventToRow(pairEnriched), true);
    await insertRow(c, 'raw_events', RAW_EVENT_COLUMNS, rawEventToRow(rawOnly), true);
    await insertRow(c, 'enriched_events', ENRICHED_EVENT_COLUMNS, enrichedEventToRow(enrichedOnly), true);
    close();

    const store = await openStore({ kind: 'duckdb', path });
    try {
      await store.migrate();
      expect(await store.events.listRaw('p-a', { limit: 10 })).to.deep.equal([pairRaw, rawOnly]);
      expect(await store.events.listEnriched('p-a', { limit: 10 })).to.deep.equal([pairEnriched, enrichedOnly]);
      // The halves still missing arrive (the merge path): each fills its own half only.
      await store.events.insertEvents([
        { raw: { ...rawOnly }, enriched: enriched({ event_id: 'raw-only', timestamp: T0 + 1, ip: '203.0.113.0' }) },
      ]);
      await store.events.insertRaw([raw({ event_id: 'enriched-only', timestamp: T0 + 2, ip: '198.51.100.9' })]);
      expect(await store.events.countRaw('p-a')).to.equal(3);
      expect(await store.events.countEnriched('p-a')).to.equal(3);
      const raws = await store.events.listRaw('p-a', { limit: 10 });
      expect(raws.map((e) => e.ip)).to.deep.equal(['203.0.113.77', rawOnly.ip, '198.51.100.9']);
      const enricheds = await store.events.listEnriched('p-a', { limit: 10 });
      expect(enricheds.map((e) => e.ip)).to.deep.equal(['203.0.113.0', '203.0.113.0', enrichedOnly.ip]);
    } finally {
      await store.close();
    }
  });

  it("appends the columns in the table's order, and keys each event as the SQL does", async function () {
    const path = join(dir, 'spoor.duckdb');
    const store = await openStore({ kind: 'duckdb', path });
    await store.migrate();
    await store.close();
    const db = await DuckDBInstance.create(path);
    const c = await db.connect();
    try {
      const described = (await c.runAndReadAll('DESCRIBE events')).getRowObjectsJS().map((r) => r.column_name);
      expect(described).to.deep.equal(EVENTS_TABLE.map(([name]) => name));
      const ids: Array<[string, string]> = [
        ['p1', 'e1'],
        ['proj-ü', '2f6c1c2e-0b1a-4f7e-9d55-0a1b2c3d4e5f'],
        ['', ''],
      ];
      for (const [p, e] of ids) {
        const [row] = (
          await c.runAndReadAll(`SELECT ${EVENT_KEY.replace('project_id', '$1').replace('event_id', '$2')} AS k`, [
            p,
            e,
          ])
        ).getRowObjectsJS();
        expect(row!.k).to.equal(eventKey(p, e));
      }
    } finally {
      c.closeSync();
      db.closeSync();
    }
  });

  it('makes the account of every project of a step-11 store its owner (issue 45)', async function () {
    const path = join(dir, 'spoor.duckdb');
    const { c, close } = await storeAtStep(path, 11);
    await c.run(
      `INSERT INTO projects (project_id, origin, project, account_id, verified, verification_token, created_at)
       VALUES ('old-1', 'https://old.example', 'old/web', 'acct-old', false, 'tok', ${T0})`,
    );
    close();
    const store = await openStore({ kind: 'duckdb', path });
    try {
      await store.migrate();
      expect(await store.members.list('old-1')).to.deep.equal([
        { project_id: 'old-1', account_id: 'acct-old', role: 'owner', created_at: T0, updated_at: T0 },
      ]);
    } finally {
      await store.close();
    }
  });
});
