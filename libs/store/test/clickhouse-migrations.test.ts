// A ClickHouse store made by an earlier release keeps its sessions through step 9, which adds the
// projections that serve the page by last activity and builds them for the parts already written,
// and through step 11, which rebuilds the minutes rolled up before it with their events' offsets.
import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { createClient, type ClickHouseClient } from '@clickhouse/client';
import { clickhouseUrl, requireEngine } from '@spoor/testkit';
import { clickhouseBootstrap, clickhouseMigrations } from '../src/clickhouse/migrations.js';
import { openStore, type Store } from '../src/index.js';
import { T0, enriched, session } from './store-fixtures.js';

describe('ClickHouse migrations', function () {
  this.timeout(120_000);
  let url: string | null;
  let database: string;
  let admin: ClickHouseClient;
  let store: Store;

  before(async function () {
    url = await clickhouseUrl();
    requireEngine(this, url, 'clickhouse');
    database = `spoor_migrate_${randomBytes(6).toString('hex')}`;
    admin = createClient({ url, compression: { request: false, response: false } });
    // The schema as the release with steps up to 8 left it.
    for (const sql of clickhouseBootstrap(database)) await admin.command({ query: sql });
    for (const m of clickhouseMigrations.filter((s) => s.version <= 8)) {
      for (const sql of m.statements(database)) await admin.command({ query: sql });
      await admin.insert({
        table: `${database}.schema_migrations`,
        values: [{ version: m.version, name: m.name, applied_at: T0 }],
        format: 'JSONEachRow',
      });
    }
    store = await openStore({ kind: 'clickhouse', url, database });
  });

  after(async function () {
    if (!url) return;
    await store?.close();
    await admin?.command({ query: `DROP DATABASE IF EXISTS ${database}` });
    await admin?.close();
  });

  it('builds the projections of step 9 over the sessions written before it, which the page then reads', async function () {
    // Three versions of one session in three parts, and a second session.
    for (let i = 0; i < 3; i++) {
      await store.sessions.upsert([
        session({ session_id: 'grows', last_event_at: T0 + i * 3_600_000, event_count: i + 1, updated_at: T0 + i }),
      ]);
    }
    await store.sessions.upsert([session({ session_id: 'other', last_event_at: T0 + 60_000, updated_at: T0 })]);
    await store.migrate();

    const parts = await (
      await admin.query({
        query: `SELECT p.name AS name, sum(p.rows) AS rows FROM system.projection_parts AS p
                WHERE p.database = {db:String} AND p.table = 'sessions' AND p.active GROUP BY p.name ORDER BY p.name`,
        query_params: { db: database },
        format: 'JSONEachRow',
      })
    ).json<{ name: string; rows: string }>();
    expect(parts.map((p) => p.name)).to.deep.equal(['session_activity_hours', 'sessions_by_activity']);
    expect(Number(parts.find((p) => p.name === 'sessions_by_activity')!.rows)).to.equal(4);

    expect(await store.sessions.list('p-a', { limit: 10 })).to.deep.equal([
      { session_id: 'grows', first_event_at: T0, last_event_at: T0 + 2 * 3_600_000, event_count: 3 },
      { session_id: 'other', first_event_at: T0, last_event_at: T0 + 60_000, event_count: 3 },
    ]);
    expect(await store.sessions.list('p-a', { window_end: T0 + 2 * 3_600_000, limit: 10 })).to.deep.equal([
      { session_id: 'other', first_event_at: T0, last_event_at: T0 + 60_000, event_count: 3 },
    ]);
    await store.migrate();
  });

  it('keeps the page right while versions are not merged: the latest, and none past a window end', async function () {
    await admin.command({ query: `SYSTEM STOP MERGES ${database}.sessions` });
    try {
      const base = { project_id: 'p-unmerged', first_event_at: T0 };
      for (let i = 0; i < 5; i++) {
        await store.sessions.upsert([
          session({
            ...base,
            session_id: 'moves',
            last_event_at: T0 + i * 86_400_000,
            event_count: i + 1,
            updated_at: T0 + i,
          }),
        ]);
      }
      await store.sessions.upsert([session({ ...base, session_id: 'stays', last_event_at: T0 + 1, updated_at: T0 })]);
      const ids = async (q: Parameters<Store['sessions']['list']>[1]) =>
        (await store.sessions.list('p-unmerged', q)).map((s) => [s.session_id, s.last_event_at, s.event_count]);
      expect(await ids({ limit: 10 })).to.deep.equal([
        ['moves', T0 + 4 * 86_400_000, 5],
        ['stays', T0 + 1, 3],
      ]);
      expect(await ids({ window_end: T0 + 4 * 86_400_000, limit: 10 })).to.deep.equal([['stays', T0 + 1, 3]]);
      expect(await ids({ window_start: T0 + 86_400_000, window_end: T0 + 3 * 86_400_000, limit: 10 })).to.deep.equal(
        [],
      );
      expect(await ids({ window_end: T0 + 4 * 86_400_000 + 1, limit: 1 })).to.deep.equal([
        ['moves', T0 + 4 * 86_400_000, 5],
      ]);
    } finally {
      await admin.command({ query: `SYSTEM START MERGES ${database}.sessions` });
    }
  });

  it('refuses a lightweight DELETE on sessions, which would leave rows in the projections', async function () {
    let refused: unknown = null;
    try {
      await admin.command({ query: `DELETE FROM ${database}.sessions WHERE session_id = 'other'` });
    } catch (err) {
      refused = err;
    }
    expect(String(refused)).to.match(/projection/i);
    await store.erasure.eraseVisitor('p-a', { session_id: 'other' });
    expect((await store.sessions.list('p-a', { limit: 10 })).map((s) => s.session_id)).to.deep.equal(['grows']);
  });

  it('rebuilds the minutes rolled up before step 11 with their offsets, so a series cut inside minutes stays exact', async function () {
    // Hourly buckets from 23.456 s into minute 17 cut minute 17 of every hour; events fall on
    // both sides of each cut, and elsewhere. The store is migrated here too, so the case does not
    // lean on the cases before it.
    await store.migrate();
    const H = 3_600_000;
    const cut = 17 * 60_000 + 23_456;
    const w = { start: T0 + cut, end: T0 + 5 * H + cut };
    const at: number[] = [];
    for (let h = 0; h < 6; h++) at.push(...[1_000, cut - 1, cut, cut + 1, 40 * 60_000].map((o) => T0 + h * H + o));
    await store.events.insertEnriched(
      at.map((timestamp, i) => enriched({ event_id: `m-${i}`, project_id: 'p-minutes', session_id: 's', timestamp })),
    );
    const want = new Map<number, number>();
    for (const t of at.filter((t) => t >= w.start && t < w.end)) {
      const b = w.start + Math.floor((t - w.start) / H) * H;
      want.set(b, (want.get(b) ?? 0) + 1);
    }
    const events = async () =>
      (await store.analytics.series('p-minutes', w, H)).map((b) => [b.start, b.events] as [number, number]);
    expect(await events()).to.deep.equal([...want]);

    // The rows as a store before step 11 has them: no offsets. A cut minute then counts wrong.
    await admin.command({
      query: `ALTER TABLE ${database}.rollup_minutes UPDATE offsets = [] WHERE 1 SETTINGS mutations_sync = 2`,
    });
    expect(await events()).not.to.deep.equal([...want]);
    for (const sql of clickhouseMigrations.find((m) => m.version === 11)!.statements(database)) {
      await admin.command({ query: sql });
    }
    expect(await events()).to.deep.equal([...want]);
  });
});
