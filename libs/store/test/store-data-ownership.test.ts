// Issue 17 on every backend: exports written by the engine's own writer and read back by an
// independent reader (csv-parse, JSON lines, hyparquet); project deletion, checked through the
// repositories and then by SQL over every table of the schema that has a project_id column.
import { randomBytes } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { createClient } from '@clickhouse/client';
import { DuckDBInstance } from '@duckdb/node-api';
import { expect } from 'chai';
import type { ExportFormat } from '@spoor/schemas';
import { clickhouseUrl, makeTempDir, readExport, requireEngine } from '@spoor/testkit';
import { openStore, type Store } from '../src/index.js';
import {
  T0,
  account,
  apiKey,
  enriched,
  job,
  project,
  raw,
  rule,
  classification,
  session,
  tagFact,
} from './store-fixtures.js';

const FORMATS: ExportFormat[] = ['csv', 'ndjson', 'parquet'];

interface Rig {
  store: Store;
  /** Rows per table with this value in `column` (project_id unless told), over every table that has the column, by SQL. */
  rowsOf(value: string, column?: string): Promise<Record<string, number>>;
  cleanup(): Promise<void>;
}

const rigs: Array<{ name: string; open(ctx: Mocha.Context): Promise<Rig> }> = [
  {
    name: 'duckdb',
    async open() {
      const dir = await makeTempDir('spoor-ownership-');
      const path = join(dir, 'db', 'spoor.duckdb');
      let store = await openStore({ kind: 'duckdb', path });
      return {
        get store() {
          return store;
        },
        async rowsOf(value, column = 'project_id') {
          // DuckDB lets one instance own the file: close the store, count, open it again.
          await store.close();
          const instance = await DuckDBInstance.create(path);
          const conn = await instance.connect();
          const counts: Record<string, number> = {};
          try {
            const tables = (
              await conn.runAndReadAll(`SELECT table_name FROM information_schema.columns WHERE column_name = $1`, [
                column,
              ])
            ).getRowObjectsJS();
            for (const { table_name } of tables) {
              const r = await conn.runAndReadAll(
                `SELECT count(*) AS n FROM "${String(table_name)}" WHERE "${column}" = $1`,
                [value],
              );
              counts[String(table_name)] = Number(r.getRowObjectsJS()[0]!.n);
            }
          } finally {
            conn.closeSync();
            instance.closeSync();
          }
          store = await openStore({ kind: 'duckdb', path });
          return counts;
        },
        async cleanup() {
          await store.close();
          await rm(dir, { recursive: true, force: true });
        },
      } as Rig;
    },
  },
  {
    name: 'clickhouse',
    async open(ctx) {
      const url = await clickhouseUrl();
      requireEngine(ctx, url, 'clickhouse');
      const database = `spoor_test_${randomBytes(6).toString('hex')}`;
      const store = await openStore({ kind: 'clickhouse', url, database });
      const admin = createClient({ url, compression: { request: false, response: false } });
      return {
        store,
        async rowsOf(value, column = 'project_id') {
          const q = async (query: string, params: Record<string, unknown> = {}) =>
            (await admin.query({ query, query_params: params, format: 'JSONEachRow' })).json<Record<string, unknown>>();
          const tables = await q(
            `SELECT table FROM system.columns WHERE database = {db:String} AND name = {c:String} AND table NOT LIKE '%_mv'`,
            { db: database, c: column },
          );
          const counts: Record<string, number> = {};
          for (const { table } of tables) {
            const [r] = await q(`SELECT count() AS n FROM ${database}.${String(table)} WHERE ${column} = {p:String}`, {
              p: value,
            });
            counts[String(table)] = Number(r!.n);
          }
          return counts;
        },
        async cleanup() {
          await store.close();
          try {
            await admin.command({ query: `DROP DATABASE IF EXISTS ${database}` });
          } finally {
            await admin.close();
          }
        },
      };
    },
  },
];

async function bytesOf(store: Store, exportId: string): Promise<Buffer> {
  const file = await store.exports.open(exportId);
  expect(file, `export ${exportId}`).to.not.equal(null);
  const chunks: Buffer[] = [];
  for await (const c of file!.stream) chunks.push(c as Buffer);
  const all = Buffer.concat(chunks);
  expect(all.length).to.equal(file!.bytes);
  return all;
}

for (const backend of rigs) {
  describe(`Store data ownership: ${backend.name}`, function () {
    this.timeout(60_000);
    let rig: Rig | undefined;
    const store = () => rig!.store;

    before(async function () {
      rig = await backend.open(this);
      await store().migrate();
      const P = 'p-export';
      await store().events.insertRaw([
        raw({
          event_id: 'r2',
          project_id: P,
          timestamp: T0 + 2000,
          payload: { a: [1, 'x,"y"'], b: null },
          action: 'buy',
        }),
        raw({ event_id: 'r1', project_id: P, timestamp: T0 + 1000, payload: { n: 1 }, ip: '198.51.100.1' }),
        raw({ event_id: 'r3', project_id: P, timestamp: T0 + 3000 }),
        raw({ event_id: 'r-other', project_id: 'p-other', timestamp: T0 + 1500 }),
      ]);
      await store().events.insertEnriched([
        enriched({ event_id: 'e1', project_id: P, timestamp: T0 + 1000, bot: true, query: { q: 'a b', z: '' } }),
        enriched({
          event_id: 'e2',
          project_id: P,
          timestamp: T0 + 2000,
          geo: { country: 'FR', region: null, city: null, latitude: null, longitude: null },
        }),
      ]);
      await store().sessions.upsert([
        session({ session_id: 's-b', project_id: P, last_event_at: T0 + 5000, actions: { click: 4 }, tags: ['vip'] }),
        session({ session_id: 's-a', project_id: P, last_event_at: T0 + 4000, attributes: { plan: 'pro, "gold"' } }),
        session({ session_id: 's-z', project_id: 'p-other', last_event_at: T0 + 4500 }),
      ]);
    });

    after(async () => {
      await rig?.cleanup();
    });

    for (const format of FORMATS) {
      it(`exports raw events as ${format}: the window's rows of the project, oldest first, as stored`, async () => {
        const id = `raw-${format}`;
        const written = await store().exports.write({
          export_id: id,
          project_id: 'p-export',
          what: 'events',
          format,
          window_start: T0 + 1000,
          window_end: T0 + 3000,
          written_at: Date.now(),
        });
        const rows = await readExport(format, await bytesOf(store(), id));
        expect(written.rows).to.equal(2);
        expect(rows.map((r) => r.event_id)).to.deep.equal(['r1', 'r2']);
        expect(Object.keys(rows[0]!))
          .to.include.members(['event_id', 'action', 'timestamp', 'payload', 'ip', 'user_agent', 'session_id'])
          .and.not.include('project_id');
        expect(rows.map((r) => JSON.parse(r.payload!))).to.deep.equal([{ n: 1 }, { a: [1, 'x,"y"'], b: null }]);
        expect(rows.map((r) => [r.timestamp, r.action, r.ip])).to.deep.equal([
          [String(T0 + 1000), 'click', '198.51.100.1'],
          [String(T0 + 2000), 'buy', '203.0.113.7'],
        ]);
        expect(rows[0]!.referrer).to.equal(null);
      });

      it(`exports enriched events and sessions as ${format}`, async () => {
        await store().exports.write({
          export_id: `enr-${format}`,
          project_id: 'p-export',
          what: 'enriched_events',
          format,
          window_start: null,
          window_end: null,
          written_at: Date.now(),
        });
        const events = await readExport(format, await bytesOf(store(), `enr-${format}`));
        expect(events.map((r) => [r.event_id, r.geo_country, r.bot])).to.deep.equal([
          ['e1', 'DE', 'true'],
          ['e2', 'FR', 'false'],
        ]);
        expect(JSON.parse(events[0]!.query!)).to.deep.equal({ q: 'a b', z: '' });
        expect(Number(events[0]!.geo_latitude)).to.equal(52.52);

        await store().exports.write({
          export_id: `ses-${format}`,
          project_id: 'p-export',
          what: 'sessions',
          format,
          window_start: null,
          window_end: T0 + 5000,
          written_at: Date.now(),
        });
        const sessions = await readExport(format, await bytesOf(store(), `ses-${format}`));
        expect(sessions.map((r) => r.session_id)).to.deep.equal(['s-a']);
        expect(Object.keys(sessions[0]!)).to.not.include.members(['seen', 'project_id']);
        expect(JSON.parse(sessions[0]!.attributes!)).to.deep.equal({ plan: 'pro, "gold"' });
        expect(JSON.parse(sessions[0]!.actions!)).to.deep.equal({ click: 2, view: 1 });
        expect(JSON.parse(sessions[0]!.tags!)).to.deep.equal(['buyer', 'returning']);
        expect(sessions[0]!.event_count).to.equal('3');
      });
    }

    it('writes an empty window as a file with no rows, replaces a file written again, and purges by written time', async () => {
      // An hour ago, not T0: ClickHouse's TTL backstop (a week) would drop chunks written in 2024 at once.
      const HOUR_AGO = Date.now() - 3_600_000;
      const empty = await store().exports.write({
        export_id: 'empty-csv',
        project_id: 'p-none',
        what: 'events',
        format: 'ndjson',
        window_start: null,
        window_end: null,
        written_at: HOUR_AGO,
      });
      expect(empty.rows).to.equal(0);
      expect(await readExport('ndjson', await bytesOf(store(), 'empty-csv'))).to.deep.equal([]);
      await store().exports.write({
        export_id: 'again',
        project_id: 'p-export',
        what: 'events',
        format: 'csv',
        window_start: null,
        window_end: null,
        written_at: HOUR_AGO,
      });
      await store().exports.write({
        export_id: 'again',
        project_id: 'p-export',
        what: 'sessions',
        format: 'ndjson',
        window_start: null,
        window_end: null,
        written_at: HOUR_AGO + 10,
      });
      expect((await readExport('ndjson', await bytesOf(store(), 'again'))).map((r) => r.session_id)).to.deep.equal([
        's-a',
        's-b',
      ]);
      expect(await store().exports.purge(HOUR_AGO + 11)).to.be.at.least(2);
      expect(await store().exports.open('again')).to.equal(null);
      expect(await store().exports.open('empty-csv')).to.equal(null);
      expect(await store().exports.open('raw-csv')).to.not.equal(null);
      expect(await store().exports.open('never-written')).to.equal(null);
      await store()
        .exports.open('../etc/passwd')
        .then(
          () => expect.fail('an unsafe id was accepted'),
          (err: Error) => expect(err.message).to.match(/not a valid export id/),
        );
    });

    it("marks an export's rows: the mark moves with a new, changed or deleted row in the window (issue 42)", async () => {
      const P = 'p-mark';
      const source = { project_id: P, what: 'events' as const, window_start: T0, window_end: T0 + 10_000 };
      expect(await store().exports.mark(source)).to.equal('0:');
      await store().events.insertRaw([
        raw({ event_id: 'm1', project_id: P, timestamp: T0 + 1000, received_at: T0 + 7 }),
      ]);
      const one = await store().exports.mark(source);
      const written = await store().exports.write({
        ...source,
        export_id: 'mark-1',
        format: 'ndjson',
        written_at: Date.now(),
      });
      expect(written.mark)
        .to.equal(one)
        .and.equal(await store().exports.mark(source));
      // Outside the window, or another project: no change.
      await store().events.insertRaw([
        raw({ event_id: 'm-out', project_id: P, timestamp: T0 + 20_000, received_at: T0 + 9 }),
        raw({ event_id: 'm-else', project_id: 'p-mark-else', timestamp: T0 + 1000, received_at: T0 + 9 }),
      ]);
      expect(await store().exports.mark(source)).to.equal(one);
      // A late event (received now, stamped in the window) moves it.
      await store().events.insertRaw([
        raw({ event_id: 'm2', project_id: P, timestamp: T0 + 500, received_at: T0 + 8 }),
      ]);
      const two = await store().exports.mark(source);
      expect(two).to.not.equal(one);
      // Deleted rows (a retention pass, an erasure) move it too.
      await store().expiry.expire(P, T0 + 800);
      expect(await store().exports.mark(source)).to.not.equal(two);
      // A changed session moves the sessions' mark.
      const sessions = { ...source, what: 'sessions' as const };
      await store().sessions.upsert([session({ session_id: 'ms', project_id: P, last_event_at: T0 + 2000 })]);
      const before = await store().exports.mark(sessions);
      await store().sessions.upsert([
        session({ session_id: 'ms', project_id: P, last_event_at: T0 + 3000, updated_at: T0 + 3001 }),
      ]);
      expect(await store().exports.mark(sessions)).to.not.equal(before);
    });

    it("sums an account's exports at work and bytes held, and finds an identical one (issue 42)", async () => {
      const now = Date.now();
      const A = 'acct-usage';
      const request = { what: 'events', format: 'csv', window_start: T0 };
      const result = (bytes: number, expires_at: number) => ({ bytes, expires_at, mark: `${bytes}:1`, rows: 1 });
      const base = { account_id: A, project_id: 'p-u', kind: 'export' as const, request };
      await store().jobs.put(job({ ...base, job_id: 'u-queued', status: 'queued', created_at: now - 1000 }));
      await store().jobs.put(job({ ...base, job_id: 'u-running', status: 'running', created_at: now - 2000 }));
      await store().jobs.put(job({ ...base, job_id: 'u-stuck', status: 'queued', created_at: now - 25 * 3_600_000 }));
      await store().jobs.put(
        job({
          ...base,
          job_id: 'u-held1',
          status: 'succeeded',
          created_at: now - 5000,
          result: result(100, now + 60_000),
        }),
      );
      await store().jobs.put(
        job({
          ...base,
          job_id: 'u-held2',
          status: 'succeeded',
          created_at: now - 6000,
          result: result(20, now + 5000),
        }),
      );
      await store().jobs.put(
        job({
          ...base,
          job_id: 'u-expired',
          status: 'succeeded',
          created_at: now - 7000,
          result: result(999, now - 1),
        }),
      );
      await store().jobs.put(job({ ...base, job_id: 'u-failed', status: 'failed', created_at: now - 8000 }));
      await store().jobs.put(job({ ...base, job_id: 'u-other-kind', kind: 'backfill', created_at: now }));
      await store().jobs.put(job({ ...base, job_id: 'u-other-acct', account_id: 'acct-else', created_at: now }));

      const usage = await store().exports.usage({ account_id: A, now, project_id: 'p-u', request });
      expect(usage).to.deep.equal({
        active: 2,
        bytes: 120,
        next_expiry: now + 5000,
        same: { job_id: 'u-queued', status: 'queued', mark: null },
      });
      const held = await store().exports.usage({ account_id: A, now: now + 1, project_id: 'p-u', request });
      expect(held.same?.job_id).to.equal('u-queued');
      await store().jobs.put(
        job({ ...base, job_id: 'u-queued', status: 'failed', created_at: now - 1000, updated_at: now }),
      );
      await store().jobs.put(
        job({ ...base, job_id: 'u-running', status: 'failed', created_at: now - 2000, updated_at: now }),
      );
      expect((await store().exports.usage({ account_id: A, now, project_id: 'p-u', request })).same).to.deep.equal({
        job_id: 'u-held1',
        status: 'succeeded',
        mark: '100:1',
      });
      // Another window, project or account: nothing identical.
      for (const q of [
        { account_id: A, project_id: 'p-u', request: { ...request, window_start: T0 + 1 } },
        { account_id: A, project_id: 'p-else', request },
        { account_id: 'acct-nobody', project_id: 'p-u', request },
      ])
        expect((await store().exports.usage({ ...q, now })).same, JSON.stringify(q)).to.equal(null);
      expect(await store().exports.usage({ account_id: 'acct-nobody', now, project_id: 'p-u', request })).to.deep.equal(
        {
          active: 0,
          bytes: 0,
          next_expiry: null,
          same: null,
        },
      );
    });

    it('streams an export larger than one chunk intact', async () => {
      const many = Array.from({ length: 6000 }, (_, i) =>
        raw({
          event_id: `big-${String(i).padStart(5, '0')}`,
          project_id: 'p-big',
          timestamp: T0 + i,
          payload: { pad: 'x'.repeat(300), i },
        }),
      );
      await store().events.insertRaw(many);
      const written = await store().exports.write({
        export_id: 'big',
        project_id: 'p-big',
        what: 'events',
        format: 'ndjson',
        window_start: null,
        window_end: null,
        written_at: Date.now(),
      });
      expect(written.bytes).to.be.above(1024 * 1024);
      const rows = await readExport('ndjson', await bytesOf(store(), 'big'));
      expect(rows).to.have.length(6000);
      expect(rows.map((r) => JSON.parse(r.payload!).i)).to.deep.equal(many.map((_, i) => i));
    });

    it('leaves nothing of an erased person in any table, rollups included, with nothing sent after (issue 43)', async () => {
      const P = 'p-quiet';
      const HOUR = 3_600_000;
      const A = { ip: '203.0.113.61', user_agent: 'UA-quiet-A' };
      const B = { ip: '198.51.100.62', user_agent: 'UA-quiet-B' };
      const events = [
        { id: 'qa1', who: A, sid: 's-qa', action: 'view', at: T0 + 1000 },
        { id: 'qa2', who: A, sid: 's-qa', action: 'click', at: T0 + 2000 },
        { id: 'qb1', who: B, sid: 's-qb', action: 'view', at: T0 + 3000 },
        { id: 'qb2', who: B, sid: 's-qb', action: 'buy', at: T0 + 4000 },
      ];
      await store().events.insertEvents(
        events.map((e) => {
          const fields = {
            event_id: e.id,
            project_id: P,
            ...e.who,
            action: e.action,
            timestamp: e.at,
            session_id: e.sid,
          };
          return { raw: raw(fields), enriched: enriched(fields) };
        }),
      );
      const hour = { start: T0, end: T0 + HOUR };
      // The rollups of the hour are built (a whole hour is read from them), then the person is erased.
      expect((await store().analytics.transitions(P, hour)).sessions).to.equal(2);
      expect((await rig!.rowsOf('s-qa', 'session_id')).rollup_segments).to.be.greaterThan(0);
      const erased = await store().erasure.eraseVisitor(P, { ips: [A.ip] });
      expect(erased.session_ids).to.deep.equal(['s-qa']);
      const left = Object.entries(await rig!.rowsOf('s-qa', 'session_id')).filter(([, n]) => n > 0);
      expect(left, 'tables still naming the erased session').to.deep.equal([]);
      // One visitor row for the hour: B's; no superseded generation keeps A's hash.
      const rows = await rig!.rowsOf(P);
      expect({ visitors: rows.rollup_visitors, segments: rows.rollup_segments }).to.deep.equal({
        visitors: 1,
        segments: 1,
      });
      const after = await store().analytics.transitions(P, hour);
      expect(after.sessions).to.equal(1);
      expect(after.cells.map((c) => `${c.from}>${c.to}:${c.count}`).sort()).to.deep.equal([
        '$start>view:1',
        'buy>$end:1',
        'view>buy:1',
      ]);
      // A retention pass says what it took, and leaves no rollup row of the expired hour.
      expect(await store().expiry.expire(P, T0 + HOUR)).to.deep.equal({ window: { start: T0 + 3000, end: T0 + HOUR } });
      const expired = await rig!.rowsOf(P);
      const counted = ['rollup_events', 'rollup_visitors', 'rollup_segments', 'rollup_cells', 'rollup_minutes'];
      expect(counted.filter((t) => (expired[t] ?? 0) > 0)).to.deep.equal([]);
      expect(await store().expiry.expire(P, T0 + HOUR)).to.deep.equal({ window: null });
    });

    it('deletes a project and every row it holds, in every table, and nothing of another project', async () => {
      const s = store();
      const seedProject = async (pid: string, account: string, origin: string) => {
        await s.projects.create(project({ project_id: pid, account_id: account, origin }));
        await s.events.insertRaw([raw({ event_id: 'x1', project_id: pid, session_id: 'sx' })]);
        await s.events.insertEnriched([enriched({ event_id: 'x1', project_id: pid, session_id: 'sx' })]);
        await s.events.touchActions([{ project_id: pid, action: 'click', last_seen: T0 }]);
        await s.sessions.upsert([session({ session_id: 'sx', project_id: pid })]);
        await s.tags.add([tagFact({ project_id: pid, session_id: 'sx', tag: 'vip' })]);
        await s.rules.put(rule({ rule_id: 'r1', project_id: pid }));
        await s.classifications.put([classification({ session_id: 'sx', project_id: pid })]);
        for (const kind of ['overview', 'channel', 'webhook', 'delivery', 'alert', 'schedule']) {
          await s.records.put([
            {
              kind,
              project_id: pid,
              id: `${kind}-1`,
              parent_id: '',
              sort_key: T0,
              data: { kind },
              updated_at: T0,
              deleted: false,
            },
          ]);
        }
        // A share link's token index, of no project: one naming its project as parent, one (as
        // written before the parent was set) only in its data.
        for (const [id, parent] of [
          [`token-${pid}`, pid],
          [`old-token-${pid}`, ''],
        ] as const) {
          await s.records.put([
            {
              kind: 'share-token',
              project_id: '',
              id,
              parent_id: parent,
              sort_key: T0,
              data: { project_id: pid, share_id: 'share-1' },
              updated_at: T0,
              deleted: false,
            },
          ]);
        }
        await s.jobs.put(job({ job_id: `${pid}-export`, project_id: pid, account_id: account, kind: 'export' }));
        await s.jobs.put(
          job({ job_id: `${pid}-delete`, project_id: pid, account_id: account, kind: 'project_deletion' }),
        );
        await s.exports.write({
          export_id: `${pid}-export`,
          project_id: pid,
          what: 'events',
          format: 'csv',
          window_start: null,
          window_end: null,
          written_at: Date.now(),
        });
      };
      await seedProject('p-del', 'acct-del', 'https://del.example');
      await seedProject('p-keep', 'acct-keep', 'https://keep.example');

      await s.erasure.deleteProject('p-del', 'p-del-delete');
      await s.erasure.deleteProject('p-del', 'p-del-delete');

      expect(await s.projects.get('p-del')).to.equal(null);
      expect(await s.projects.find('https://del.example', 'acme/web')).to.equal(null);
      expect(await s.events.countRaw('p-del')).to.equal(0);
      expect(await s.events.countEnriched('p-del')).to.equal(0);
      expect(await s.events.sessionEvents('p-del', 'sx')).to.deep.equal([]);
      expect(await s.events.listActions('p-del')).to.deep.equal([]);
      expect(await s.sessions.count('p-del')).to.equal(0);
      expect(await s.tags.list('p-del')).to.deep.equal([]);
      expect(await s.rules.list('p-del')).to.deep.equal([]);
      expect(await s.classifications.get('p-del', 'sx')).to.equal(null);
      for (const kind of ['overview', 'channel', 'webhook', 'delivery', 'alert', 'schedule'])
        expect(await s.records.list(kind, 'p-del', { limit: 10 })).to.deep.equal([]);
      expect(await s.exports.open('p-del-export')).to.equal(null);
      expect(await s.records.get('share-token', '', 'token-p-del')).to.equal(null);
      expect(await s.records.get('share-token', '', 'old-token-p-del')).to.equal(null);
      // The deleting job's own record stays: it is how the owner learns that the deletion ended.
      expect((await s.jobs.listByAccount('acct-del', 10)).map((j) => j.job_id)).to.deep.equal(['p-del-delete']);

      // The other project is whole.
      expect(await s.events.countRaw('p-keep')).to.equal(1);
      expect(await s.events.sessionEvents('p-keep', 'sx')).to.have.length(1);
      expect(await s.sessions.count('p-keep')).to.equal(1);
      expect(await s.tags.list('p-keep')).to.have.length(1);
      expect(await s.records.list('webhook', 'p-keep', { limit: 10 })).to.have.length(1);
      expect(await s.records.get('share-token', '', 'token-p-keep')).to.not.equal(null);
      expect(await s.records.get('share-token', '', 'old-token-p-keep')).to.not.equal(null);
      expect(await s.jobs.listByAccount('acct-keep', 10)).to.have.length(2);
      expect(await s.exports.open('p-keep-export')).to.not.equal(null);

      const left = await rig!.rowsOf('p-del');
      expect(Object.keys(left)).to.include.members([
        'raw_events',
        'enriched_events',
        'sessions',
        'records',
        'jobs',
        'projects',
      ]);
      expect(left).to.deep.equal({ ...Object.fromEntries(Object.keys(left).map((t) => [t, 0])), jobs: 1 });
      const kept = await rig!.rowsOf('p-keep');
      expect(kept['raw_events']).to.equal(1);
      expect(kept['projects']).to.equal(1);
    });

    it('deletes an account, its API keys, email and jobs but the deleting one, and nothing of another account', async () => {
      const s = store();
      for (const id of ['acct-gone', 'acct-stays']) {
        await s.accounts.create(account({ account_id: id, email: `${id}@example.com`, subject: id }));
        await s.apiKeys.create(apiKey({ account_id: id, api_key_name: 'ci', key_hash: `hash-${id}` }));
        await s.jobs.put(job({ job_id: `${id}-export`, project_id: `p-${id}`, account_id: id, kind: 'export' }));
        await s.jobs.put(job({ job_id: `${id}-delete`, project_id: '', account_id: id, kind: 'account_deletion' }));
      }

      await s.erasure.deleteAccount('acct-gone', 'acct-gone-delete');
      await s.erasure.deleteAccount('acct-gone', 'acct-gone-delete');

      expect(await s.accounts.get('acct-gone')).to.equal(null);
      expect(await s.accounts.findByEmail('acct-gone@example.com')).to.equal(null);
      expect(await s.apiKeys.list('acct-gone')).to.deep.equal([]);
      expect(await s.apiKeys.findByHash('hash-acct-gone')).to.equal(null);
      expect((await s.jobs.listByAccount('acct-gone', 10)).map((j) => j.job_id)).to.deep.equal(['acct-gone-delete']);

      expect((await s.accounts.get('acct-stays'))?.email).to.equal('acct-stays@example.com');
      expect(await s.apiKeys.findByHash('hash-acct-stays')).to.not.equal(null);
      expect(await s.jobs.listByAccount('acct-stays', 10)).to.have.length(2);
      // The email is free again: signing up with it makes a new, empty account.
      await s.accounts.create(
        account({ account_id: 'acct-again', email: 'acct-gone@example.com', subject: 'acct-again' }),
      );
      expect((await s.accounts.findByEmail('acct-gone@example.com'))?.account_id).to.equal('acct-again');

      // By SQL, over every table with an account_id column (DuckDB's rig reopens the store).
      const left = await rig!.rowsOf('acct-gone', 'account_id');
      expect(Object.keys(left)).to.include.members(['accounts', 'api_keys', 'jobs']);
      expect(left).to.deep.equal({ ...Object.fromEntries(Object.keys(left).map((t) => [t, 0])), jobs: 1 });
    });
  });
}
