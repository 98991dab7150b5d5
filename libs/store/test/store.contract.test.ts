// One contract, every backend: the same cases run against DuckDB in a temp dir and against
// ClickHouse (a local chDB-backed server from @spoor/testkit; skipped when there is none).
// The cases of accounts, API keys, signing keys, tags, rules, classifications, jobs and the
// backfill's reads live in store-contract-*.ts (kept apart for size) and are registered here,
// inside each backend's suite.
import { expect } from 'chai';
import { StoreConflictError, type Store } from '../src/index.js';
import { backends, migratedStore } from './store-backends.js';
import { accountCases, apiKeyCases, revokedTokenCases, signingKeyCases } from './store-contract-accounts.js';
import { analyticsCases, recordCases, sizeCases } from './store-contract-analytics.js';
import { rollupCases } from './store-contract-rollups.js';
import { backfillCases } from './store-contract-backfill.js';
import { jobCases } from './store-contract-jobs.js';
import { classificationCases, ruleCases } from './store-contract-rules.js';
import { tagCases } from './store-contract-tags.js';
import { INJECTION, T0, enriched, project, raw, session } from './store-fixtures.js';

const ids = (events: Array<{ event_id: string }>) => events.map((e) => e.event_id);

for (const backend of backends) {
  describe(`Store contract: ${backend.name}`, function () {
    let store: Store;

    migratedStore(backend, (s) => (store = s));

    it('reports its kind', function () {
      expect(store.kind).to.equal(backend.name);
    });

    it('migrates idempotently, also when called twice at once', async function () {
      await store.migrate();
      await Promise.all([store.migrate(), store.migrate()]);
      expect(await store.events.countRaw('p-migrate')).to.equal(0);
    });

    describe('projects', function () {
      const a = project({ project_id: 'proj-1' });
      const b = project({
        project_id: 'proj-2',
        origin: 'https://other.example',
        account_id: 'acct-2',
        created_at: T0 + 1,
      });
      const c = project({ project_id: 'proj-3', project: 'acme/app', created_at: T0 + 2 });

      before(async function () {
        for (const p of [a, b, c]) await store.projects.create(p);
      });

      it('finds by (origin, project), by name, by id and by account', async function () {
        expect(await store.projects.find(a.origin, a.project)).to.deep.equal(a);
        expect(await store.projects.find(a.origin, 'nope/none')).to.equal(null);
        expect(await store.projects.findByName('acme/web')).to.deep.equal([a, b]);
        expect(await store.projects.get('proj-3')).to.deep.equal(c);
        expect(await store.projects.get('proj-404')).to.equal(null);
        expect(await store.projects.listByAccount('acct-1')).to.deep.equal([a, c]);
        expect(await store.projects.listByAccount('acct-2')).to.deep.equal([b]);
      });

      it('refuses a second (origin, project) with StoreConflictError', async function () {
        const dup = project({ project_id: 'proj-dup', account_id: 'acct-9' });
        let caught: unknown;
        try {
          await store.projects.create(dup);
        } catch (err) {
          caught = err;
        }
        expect(caught).to.be.instanceOf(StoreConflictError);
        expect(await store.projects.find(a.origin, a.project)).to.deep.equal(a);
        expect(await store.projects.get('proj-dup')).to.equal(null);
      });

      it('lets exactly one of two concurrent creates of a pair win', async function () {
        const racers = ['race-1', 'race-2'].map((id) => project({ project_id: id, origin: 'https://race.example' }));
        const results = await Promise.allSettled(racers.map((r) => store.projects.create(r)));
        const won = results.filter((r) => r.status === 'fulfilled');
        const lost = results.flatMap((r) => (r.status === 'rejected' ? [r.reason as unknown] : []));
        expect(won).to.have.length(1);
        expect(lost).to.have.length(1);
        expect(lost[0]).to.be.instanceOf(StoreConflictError);
        const winner = await store.projects.find('https://race.example', 'acme/web');
        expect(racers).to.deep.include(winner);
        expect(await store.projects.get(winner!.project_id === 'race-1' ? 'race-2' : 'race-1')).to.equal(null);
      });

      it('sets verified on and off', async function () {
        await store.projects.setVerified('proj-1', true);
        expect(await store.projects.get('proj-1')).to.deep.equal({ ...a, verified: true });
        expect(await store.projects.find(a.origin, a.project)).to.deep.equal({ ...a, verified: true });
        await store.projects.setVerified('proj-1', false);
        expect(await store.projects.get('proj-1')).to.deep.equal(a);
        await store.projects.setVerified('proj-404', true);
      });
    });

    describe('raw and enriched events', function () {
      it('stores each raw event once across repeated and overlapping batches', async function () {
        const batch = [
          raw({ event_id: 'r1' }),
          raw({ event_id: 'r2', timestamp: T0 + 1 }),
          raw({ event_id: 'r3', timestamp: T0 + 2 }),
        ];
        await store.events.insertRaw(batch);
        await store.events.insertRaw(batch);
        await store.events.insertRaw([
          batch[2]!,
          raw({ event_id: 'r4', timestamp: T0 + 3 }),
          raw({ event_id: 'r4', timestamp: T0 + 3 }),
        ]);
        await store.events.insertRaw([]);
        expect(await store.events.countRaw('p-a')).to.equal(4);
        const listed = await store.events.listRaw('p-a', { limit: 100 });
        expect(ids(listed)).to.deep.equal(['r1', 'r2', 'r3', 'r4']);
        expect(listed[0]).to.deep.equal(batch[0]);
      });

      it('keeps the first write of an event_id', async function () {
        await store.events.insertRaw([raw({ project_id: 'p-first', event_id: 'f1', payload: { v: 'first' } })]);
        await store.events.insertRaw([
          raw({ project_id: 'p-first', event_id: 'f1', payload: { v: 'second' }, timestamp: T0 + 9 }),
        ]);
        await store.events.insertRaw([
          raw({ project_id: 'p-first', event_id: 'f2', payload: { v: 'a' } }),
          raw({ project_id: 'p-first', event_id: 'f2', payload: { v: 'b' } }),
        ]);
        const listed = await store.events.listRaw('p-first', { limit: 10 });
        expect(listed.map((e) => e.payload)).to.deep.equal([{ v: 'first' }, { v: 'a' }]);
        expect(listed[0]!.timestamp).to.equal(T0);
      });

      it('stores each enriched event once and round-trips every field', async function () {
        const batch = [
          enriched({ event_id: 'e1' }),
          enriched({
            event_id: 'e2',
            timestamp: T0 + 1,
            bot: true,
            query: {},
            path: null,
            url: null,
            geo: { country: null, region: null, city: null, latitude: null, longitude: null },
            sent_at: T0 - 50,
            referrer: 'https://ref.example/',
          }),
        ];
        await store.events.insertEnriched(batch);
        await store.events.insertEnriched([...batch, enriched({ event_id: 'e3', timestamp: T0 + 2 })]);
        expect(await store.events.countEnriched('p-a')).to.equal(3);
        const listed = await store.events.listEnriched('p-a', { limit: 100 });
        expect(ids(listed)).to.deep.equal(['e1', 'e2', 'e3']);
        expect(listed.slice(0, 2)).to.deep.equal(batch);
      });

      it('writes the raw and the enriched row of each event together, each once, each with its own ip, url and referrer', async function () {
        const pair = (id: string, t: number) => {
          const r = raw({
            project_id: 'p-pairs',
            event_id: id,
            timestamp: t,
            ip: '203.0.113.77',
            url: 'https://a.example/x?utm_source=n#top',
            referrer: 'https://a.example/from',
          });
          const e = enriched({
            project_id: 'p-pairs',
            event_id: id,
            timestamp: t,
            session_id: 'S',
            ip: '203.0.113.0',
            url: 'https://a.example/x?utm_source=n',
            referrer: null,
            sent_at: null,
            query: { utm_source: 'n' },
          });
          return { raw: { ...r, session_id: 'S' }, enriched: e };
        };
        const batch = [pair('w1', T0), pair('w2', T0 + 1)];
        await store.events.insertEvents(batch);
        // A replayed batch, with a repeat inside it and one new event.
        await store.events.insertEvents([...batch, pair('w1', T0 + 5), pair('w3', T0 + 2)]);
        await store.events.insertEvents([]);
        expect(await store.events.countRaw('p-pairs')).to.equal(3);
        expect(await store.events.countEnriched('p-pairs')).to.equal(3);
        expect((await store.events.listRaw('p-pairs', { limit: 10 })).slice(0, 2)).to.deep.equal(
          batch.map((p) => p.raw),
        );
        expect((await store.events.listEnriched('p-pairs', { limit: 10 })).slice(0, 2)).to.deep.equal(
          batch.map((p) => p.enriched),
        );
      });

      it('round-trips unicode, nesting, quotes and a 30 KB payload exactly', async function () {
        const payload = {
          text: 'Grüße, 日本語, العربية, emoji 👩‍👩‍👧‍👦🦆, combining é, zero-width \u200b',
          quotes: `it's "quoted" \`back\` \\ backslash \n newline \t tab \u0000 nul`,
          nested: { a: [1, 2.5, -3, { b: [null, true, false, { c: 'deep' }] }], empty: {}, list: [] },
          numbers: { big: 9_007_199_254_740_991, neg: -1, float: 0.1, exp: 1e-7 },
          injection: INJECTION,
          big: 'x'.repeat(30 * 1024),
        };
        const e = enriched({ project_id: 'p-payload', event_id: 'pl-1', payload });
        await store.events.insertEnriched([e]);
        await store.events.insertRaw([raw({ project_id: 'p-payload', event_id: 'pl-1', payload })]);
        const [got] = await store.events.listEnriched('p-payload', { limit: 1 });
        expect(got).to.deep.equal(e);
        const [gotRaw] = await store.events.listRaw('p-payload', { limit: 1 });
        expect(gotRaw!.payload).to.deep.equal(payload);
      });

      it('windows on timestamp, end exclusive, oldest first with ties by event_id, and limits', async function () {
        const p = 'p-window';
        await store.events.insertRaw([
          raw({ project_id: p, event_id: 'w5', timestamp: T0 + 4000 }),
          raw({ project_id: p, event_id: 'w3b', timestamp: T0 + 3000 }),
          raw({ project_id: p, event_id: 'w1', timestamp: T0 + 1000 }),
          raw({ project_id: p, event_id: 'w3a', timestamp: T0 + 3000 }),
          raw({ project_id: p, event_id: 'w2', timestamp: T0 + 2000 }),
        ]);
        const list = async (q: { window_start?: number; window_end?: number; limit: number }) =>
          ids(await store.events.listRaw(p, q));
        expect(await list({ limit: 10 })).to.deep.equal(['w1', 'w2', 'w3a', 'w3b', 'w5']);
        expect(await list({ window_start: T0 + 2000, window_end: T0 + 4000, limit: 10 })).to.deep.equal([
          'w2',
          'w3a',
          'w3b',
        ]);
        expect(await list({ window_start: T0 + 2000, window_end: T0 + 3000, limit: 10 })).to.deep.equal(['w2']);
        expect(await list({ window_start: T0 + 3000, limit: 10 })).to.deep.equal(['w3a', 'w3b', 'w5']);
        expect(await list({ window_end: T0 + 1000, limit: 10 })).to.deep.equal([]);
        expect(await list({ limit: 2 })).to.deep.equal(['w1', 'w2']);
        expect(await list({ window_start: T0 + 3000, limit: 1 })).to.deep.equal(['w3a']);
        expect(await list({ limit: 0 })).to.deep.equal([]);

        await store.events.insertEnriched([
          enriched({ project_id: p, event_id: 'x2', timestamp: T0 + 2000 }),
          enriched({ project_id: p, event_id: 'x1', timestamp: T0 + 1000 }),
          enriched({ project_id: p, event_id: 'x3', timestamp: T0 + 3000 }),
        ]);
        const en = await store.events.listEnriched(p, { window_start: T0 + 1000, window_end: T0 + 3000, limit: 10 });
        expect(ids(en)).to.deep.equal(['x1', 'x2']);
      });

      it("lists one session's events oldest first", async function () {
        const p = 'p-sess-events';
        await store.events.insertEnriched([
          enriched({ project_id: p, event_id: 'c', session_id: 'S', timestamp: T0 + 30 }),
          enriched({ project_id: p, event_id: 'a', session_id: 'S', timestamp: T0 + 10 }),
          enriched({ project_id: p, event_id: 'o', session_id: 'OTHER', timestamp: T0 + 15 }),
          enriched({ project_id: p, event_id: 'b2', session_id: 'S', timestamp: T0 + 20 }),
        ]);
        await store.events.insertEnriched([
          enriched({ project_id: p, event_id: 'b1', session_id: 'S', timestamp: T0 + 20 }),
          enriched({ project_id: p, event_id: 'a', session_id: 'S', timestamp: T0 + 10 }),
        ]);
        expect(ids(await store.events.sessionEvents(p, 'S'))).to.deep.equal(['a', 'b1', 'b2', 'c']);
        expect(ids(await store.events.sessionEvents(p, 'OTHER'))).to.deep.equal(['o']);
        expect(await store.events.sessionEvents(p, 'none')).to.deep.equal([]);
        // Within the summary's time range, both ends included: the same events; a narrower range, fewer.
        expect(ids(await store.events.sessionEvents(p, 'S', { from: T0 + 10, to: T0 + 30 }))).to.deep.equal([
          'a',
          'b1',
          'b2',
          'c',
        ]);
        expect(ids(await store.events.sessionEvents(p, 'S', { from: T0 + 11, to: T0 + 29 }))).to.deep.equal([
          'b1',
          'b2',
        ]);
      });
    });

    describe('sessions', function () {
      const p = 'p-sessions';
      const s1 = session({ project_id: p, session_id: 's1', last_event_at: T0 + 1000 });
      const s2 = session({
        project_id: p,
        session_id: 's2',
        last_event_at: T0 + 3000,
        classification: null,
        tags: [],
        attributes: {},
        actions: {},
      });
      const s3 = session({ project_id: p, session_id: 's3', last_event_at: T0 + 2000 });

      before(async function () {
        await store.sessions.upsert([s1, s2]);
        await store.sessions.upsert([s3]);
      });

      it('gets one, many and none', async function () {
        expect(await store.sessions.get(p, 's1')).to.deep.equal(s1);
        expect(await store.sessions.get(p, 's2')).to.deep.equal(s2);
        expect(await store.sessions.get(p, 'none')).to.equal(null);
        expect(await store.sessions.getMany(p, ['s3', 'none', 's1'])).to.deep.equal([s1, s3]);
        expect(await store.sessions.getMany(p, [])).to.deep.equal([]);
      });

      it("gives a session's time range alone, null for none and for another project's session", async function () {
        const spanOf = (s: { first_event_at: number; last_event_at: number }) => ({
          first_event_at: s.first_event_at,
          last_event_at: s.last_event_at,
        });
        expect(await store.sessions.span(p, 's1')).to.deep.equal(spanOf(s1));
        expect(await store.sessions.span(p, 's2')).to.deep.equal(spanOf(s2));
        expect(await store.sessions.span(p, 'none')).to.equal(null);
        expect(await store.sessions.span(`${p}-other`, 's1')).to.equal(null);
        const elsewhere = session({ project_id: `${p}-other`, session_id: 's1', last_event_at: T0 + 9000 });
        await store.sessions.upsert([elsewhere]);
        expect(await store.sessions.span(`${p}-other`, 's1')).to.deep.equal(spanOf(elsewhere));
        expect(await store.sessions.span(p, 's1')).to.deep.equal(spanOf(s1));
      });

      it('gets many by a long id list (parameters past URL length)', async function () {
        const many = Array.from({ length: 2000 }, (_, i) => `missing-session-${String(i).padStart(5, '0')}`);
        const got = await store.sessions.getMany(p, [...many, 's2']);
        expect(got).to.deep.equal([s2]);
      });

      it('lists newest first, windowed on last_event_at (end exclusive) and limited', async function () {
        const list = async (q: { window_start?: number; window_end?: number; limit: number }) =>
          (await store.sessions.list(p, q)).map((s) => s.session_id);
        expect(await store.sessions.list(p, { limit: 1 })).to.deep.equal([
          {
            session_id: 's2',
            first_event_at: s2.first_event_at,
            last_event_at: s2.last_event_at,
            event_count: s2.event_count,
          },
        ]);
        expect(await list({ limit: 10 })).to.deep.equal(['s2', 's3', 's1']);
        expect(await list({ window_start: T0 + 1000, window_end: T0 + 3000, limit: 10 })).to.deep.equal(['s3', 's1']);
        expect(await list({ window_start: T0 + 1001, limit: 10 })).to.deep.equal(['s2', 's3']);
      });

      it('breaks ties on last_event_at by session id, also across the limit, and keeps other projects out', async function () {
        const q = 'p-ties';
        const at = (i: number) => T0 + 10_000 + (i < 4 ? 0 : i);
        await store.sessions.upsert(
          [5, 3, 0, 4, 2, 1].map((i) =>
            session({ project_id: q, session_id: `t${i}`, first_event_at: T0, last_event_at: at(i) }),
          ),
        );
        await store.sessions.upsert([
          session({ project_id: 'p-ties-other', session_id: 'x', first_event_at: T0, last_event_at: T0 + 10_000 }),
        ]);
        const ids = async (limit: number) => (await store.sessions.list(q, { limit })).map((s) => s.session_id);
        expect(await ids(10)).to.deep.equal(['t5', 't4', 't0', 't1', 't2', 't3']);
        // The 3rd and 4th share last_event_at with two more: the lowest ids among the tie win.
        expect(await ids(3)).to.deep.equal(['t5', 't4', 't0']);
        expect(await ids(4)).to.deep.equal(['t5', 't4', 't0', 't1']);
        expect(await store.sessions.list(q, { window_start: T0 + 20_000, limit: 5 })).to.deep.equal([]);
      });

      it('replaces a whole state; an older state arriving later is ignored', async function () {
        const next = session({
          project_id: p,
          session_id: 's1',
          last_event_at: T0 + 5000,
          event_count: 9,
          actions: { click: 9 },
          tags: ['x'],
          seen: ['ab12', 'cd34', 'ef56'],
          updated_at: T0 + 5000,
          classification: null,
        });
        await store.sessions.upsert([next]);
        expect(await store.sessions.get(p, 's1')).to.deep.equal(next);
        await store.sessions.upsert([{ ...s1, updated_at: T0 + 10 }]);
        expect(await store.sessions.get(p, 's1')).to.deep.equal(next);
        expect(await store.sessions.span(p, 's1')).to.deep.equal({
          first_event_at: next.first_event_at,
          last_event_at: next.last_event_at,
        });
        expect((await store.sessions.list(p, { limit: 10 })).map((s) => s.session_id)).to.deep.equal([
          's1',
          's2',
          's3',
        ]);

        const a = session({ project_id: p, session_id: 's4', event_count: 1, updated_at: T0 + 1 });
        const b = session({ project_id: p, session_id: 's4', event_count: 2, updated_at: T0 + 2 });
        await store.sessions.upsert([b, a]);
        expect((await store.sessions.get(p, 's4'))!.event_count).to.equal(2);
      });
    });

    describe('actions', function () {
      it('keeps the greatest last_seen for many actions at once, as for a few', async function () {
        const p = 'p-many-actions';
        const names = Array.from({ length: 40 }, (_, i) => `a${String(i).padStart(2, '0')}`);
        await store.events.touchActions(names.map((action, i) => ({ project_id: p, action, last_seen: T0 + i })));
        await store.events.touchActions(
          names.map((action, i) => ({ project_id: p, action, last_seen: i % 2 ? T0 + 1000 + i : T0 - 1 })),
        );
        const listed = await store.events.listActions(p);
        expect(listed).to.have.length(40);
        expect(Object.fromEntries(listed.map((a) => [a.action, a.last_seen]))).to.deep.equal(
          Object.fromEntries(names.map((a, i) => [a, i % 2 ? T0 + 1000 + i : T0 + i])),
        );
      });

      it('keeps the greatest last_seen per action, whatever the arrival order', async function () {
        const p = 'p-actions';
        await store.events.touchActions([
          { project_id: p, action: 'click', last_seen: T0 + 100 },
          { project_id: p, action: 'view', last_seen: T0 + 200 },
          { project_id: p, action: 'click', last_seen: T0 + 150 },
          { project_id: p, action: 'click', last_seen: T0 + 120 },
        ]);
        await store.events.touchActions([{ project_id: p, action: 'click', last_seen: T0 + 50 }]);
        await store.events.touchActions([]);
        expect(await store.events.listActions(p)).to.deep.equal([
          { action: 'view', last_seen: T0 + 200 },
          { action: 'click', last_seen: T0 + 150 },
        ]);
        await store.events.touchActions([{ project_id: p, action: 'click', last_seen: T0 + 300 }]);
        expect(await store.events.listActions(p)).to.deep.equal([
          { action: 'click', last_seen: T0 + 300 },
          { action: 'view', last_seen: T0 + 200 },
        ]);
      });
    });

    describe('isolation between projects', function () {
      it("never shows project B's rows to project A, even with equal ids", async function () {
        const A = 'iso-a';
        const B = 'iso-b';
        const rawA = raw({ project_id: A, event_id: 'same', session_id: 'S', payload: { who: 'A' } });
        const rawB = raw({
          project_id: B,
          event_id: 'same',
          session_id: 'S',
          payload: { who: 'B' },
          action: 'b-action',
        });
        await store.events.insertRaw([rawA, rawB, raw({ project_id: B, event_id: 'only-b' })]);
        await store.events.insertEnriched([
          enriched({ ...rawA, session_id: 'S' }),
          enriched({ ...rawB, session_id: 'S' }),
        ]);
        await store.sessions.upsert([
          session({ project_id: A, session_id: 'S', event_count: 1 }),
          session({ project_id: B, session_id: 'S', event_count: 2 }),
          session({ project_id: B, session_id: 'only-b' }),
        ]);
        await store.events.touchActions([
          { project_id: A, action: 'a', last_seen: T0 },
          { project_id: B, action: 'b', last_seen: T0 },
        ]);

        expect((await store.events.listRaw(A, { limit: 10 })).map((e) => e.payload)).to.deep.equal([{ who: 'A' }]);
        expect(await store.events.countRaw(A)).to.equal(1);
        expect(await store.events.countRaw(B)).to.equal(2);
        expect((await store.events.listEnriched(A, { limit: 10 })).map((e) => e.action)).to.deep.equal(['click']);
        expect((await store.events.sessionEvents(A, 'S')).map((e) => e.project_id)).to.deep.equal([A]);
        expect((await store.sessions.get(A, 'S'))!.event_count).to.equal(1);
        expect(await store.sessions.get(A, 'only-b')).to.equal(null);
        expect((await store.sessions.getMany(A, ['S', 'only-b'])).map((s) => s.project_id)).to.deep.equal([A]);
        expect((await store.sessions.list(A, { limit: 10 })).map((s) => s.session_id)).to.deep.equal(['S']);
        expect(await store.events.listActions(A)).to.deep.equal([{ action: 'a', last_seen: T0 }]);
      });
    });

    accountCases(() => store);
    apiKeyCases(() => store);
    signingKeyCases(() => store);
    revokedTokenCases(() => store);
    tagCases(() => store);
    ruleCases(() => store);
    classificationCases(() => store);
    jobCases(() => store);
    analyticsCases(() => store);
    rollupCases(() => store);
    recordCases(() => store);
    sizeCases(() => store);
    backfillCases(() => store);

    describe('hostile values', function () {
      it(`stores ${JSON.stringify(INJECTION)} verbatim everywhere`, async function () {
        const p = INJECTION;
        const e = raw({
          project_id: p,
          event_id: INJECTION,
          action: INJECTION,
          session_id: INJECTION,
          url: INJECTION,
          referrer: INJECTION,
          user_agent: INJECTION,
          payload: { [INJECTION]: INJECTION },
        });
        await store.events.insertRaw([e]);
        expect(await store.events.listRaw(p, { limit: 10 })).to.deep.equal([e]);
        const en = enriched({ ...e, session_id: INJECTION, query: { [INJECTION]: INJECTION } });
        await store.events.insertEnriched([en]);
        expect(await store.events.sessionEvents(p, INJECTION)).to.deep.equal([en]);
        const s = session({ project_id: p, session_id: INJECTION, tags: [INJECTION], actions: { [INJECTION]: 1 } });
        await store.sessions.upsert([s]);
        expect(await store.sessions.getMany(p, [INJECTION])).to.deep.equal([s]);
        await store.events.touchActions([{ project_id: p, action: INJECTION, last_seen: T0 }]);
        expect(await store.events.listActions(p)).to.deep.equal([{ action: INJECTION, last_seen: T0 }]);
        const pr = project({ project_id: INJECTION, origin: INJECTION, project: INJECTION, account_id: INJECTION });
        await store.projects.create(pr);
        expect(await store.projects.find(INJECTION, INJECTION)).to.deep.equal(pr);
        expect(await store.projects.listByAccount(INJECTION)).to.deep.equal([pr]);
        // Every table is still there and still answers.
        expect(await store.events.countRaw('p-a')).to.equal(4);
      });
    });
  });
}
