// Contract cases for aggregates, transitions and records; registered by store.contract.test.ts
// inside each backend's suite.
import { expect } from 'chai';
import type { Store, StoredRecord } from '../src/index.js';
import { INJECTION, T0, enriched, raw, session, tagFact } from './store-fixtures.js';

const raw0 = raw({ event_id: 'size-0', project_id: 'p-size' });

const P = 'p-analytics';
const W = { start: T0, end: T0 + 3_600_000 };

/** Three sessions in the window (s1: home → pricing → signup, s2: home, s3: a bot-free click), one outside, one bot event. */
async function seed(store: Store): Promise<void> {
  const ev = (id: string, sid: string, action: string, at: number, over: Record<string, unknown> = {}) =>
    enriched({ event_id: id, project_id: P, session_id: sid, action, timestamp: at, ...over });
  await store.events.insertEnriched([
    ev('e1', 's1', 'pageview', T0 + 1000, { path: '/' }),
    ev('e2', 's1', 'pageview', T0 + 2000, { path: '/pricing' }),
    ev('e3', 's1', 'signup', T0 + 3000),
    ev('e4', 's2', 'pageview', T0 + 4000, { path: '/', ip: '198.51.100.9' }),
    ev('e5', 's3', 'click', T0 + 5000, { ip: '198.51.100.10', user_agent: INJECTION }),
    ev('e6', 's4', 'pageview', T0 - 1, { path: '/old' }),
    ev('e7', 's5', 'pageview', T0 + 6000, { path: '/bot', bot: true }),
  ]);
  // A duplicate delivery counts once.
  await store.events.insertEnriched([ev('e3', 's1', 'signup', T0 + 3000)]);
  const s = (id: string, last: number, over: Record<string, unknown> = {}) =>
    session({ session_id: id, project_id: P, last_event_at: last, first_event_at: last - 1000, ...over });
  await store.sessions.upsert([
    s('s1', T0 + 3000, {
      duration_ms: 2000,
      page_count: 2,
      referrer: 'https://news.example.org/post?id=1',
      utm: { source: 'news', medium: null, campaign: null, term: null, content: null },
      geo: { country: 'DE', region: null, city: null, latitude: null, longitude: null },
    }),
    s('s2', T0 + 4000, {
      duration_ms: 0,
      page_count: 1,
      referrer: 'https://news.example.org/',
      device: { type: 'mobile', vendor: null, model: null },
    }),
    s('s3', T0 + 5000, {
      duration_ms: 10_000,
      page_count: 0,
      referrer: null,
      device: { type: null, vendor: null, model: null },
    }),
    s('s4', T0 - 1, { duration_ms: 99_000 }),
  ]);
  await store.tags.add([
    tagFact({ project_id: P, session_id: 's1', tag: 'buyer', tagged_at: T0 + 3000 }),
    tagFact({ project_id: P, session_id: 's1', tag: 'buyer', source: 'rule:r1', tagged_at: T0 + 3000 }),
    tagFact({ project_id: P, session_id: 's2', tag: 'buyer', tagged_at: T0 + 4000, removed: true }),
    tagFact({ project_id: P, session_id: 's4', tag: 'buyer', tagged_at: T0 - 1 }),
  ]);
}

export function analyticsCases(store: () => Store): void {
  describe('analytics', function () {
    before(async function () {
      await seed(store());
    });

    it('aggregates a window: events, visitors, sessions, bounces, durations and top lists, bots and duplicates left out', async function () {
      const a = await store().analytics.aggregate(P, W, 10);
      expect(a.events).to.equal(5);
      expect(a.visitors).to.equal(3);
      expect(a.actions).to.deep.equal([
        { name: 'pageview', count: 3 },
        { name: 'click', count: 1 },
        { name: 'signup', count: 1 },
      ]);
      expect(a.pages).to.deep.equal([
        { name: '/', count: 2 },
        { name: '/pricing', count: 1 },
      ]);
      expect(a.sessions).to.equal(3);
      expect(a.bounces).to.equal(2);
      expect(a.duration_ms.p50).to.equal(2000);
      expect(a.duration_ms.p90).to.equal(8400);
      expect(a.referrers).to.deep.equal([{ name: 'news.example.org', count: 2 }]);
      expect(a.utm_sources).to.deep.equal([{ name: 'news', count: 1 }]);
      expect(a.countries).to.deep.equal([{ name: 'DE', count: 1 }]);
      expect(a.devices).to.deep.equal([
        { name: 'desktop', count: 2 },
        { name: 'mobile', count: 1 },
      ]);
      expect(a.browsers).to.deep.equal([{ name: 'Firefox', count: 3 }]);
      expect(a.tags).to.deep.equal([{ name: 'buyer', count: 1 }]);
    });

    it('answers zeros for an empty window and honours topN', async function () {
      const empty = await store().analytics.aggregate(P, { start: 0, end: 1 }, 10);
      expect(empty).to.include({ events: 0, visitors: 0, sessions: 0, bounces: 0 });
      expect(empty.duration_ms).to.deep.equal({ p50: 0, p90: 0, p99: 0 });
      expect(empty.actions).to.deep.equal([]);
      const one = await store().analytics.aggregate(P, W, 1);
      expect(one.pages).to.deep.equal([{ name: '/', count: 2 }]);
    });

    it('counts events, visitors and sessions per bucket of the window, empty buckets left out', async function () {
      const series = await store().analytics.series(P, W, 3000);
      expect(series).to.deep.equal([
        { start: T0, events: 2, visitors: 1, sessions: 0 },
        { start: T0 + 3000, events: 3, visitors: 3, sessions: 3 },
      ]);
      expect(await store().analytics.series(P, W, 3_600_000)).to.deep.equal([
        { start: T0, events: 5, visitors: 3, sessions: 3 },
      ]);
      expect(await store().analytics.series(P, { start: 0, end: 1 }, 1)).to.deep.equal([]);
      let refused: unknown = null;
      await store()
        .analytics.series(P, W, 0)
        .catch((err: unknown) => {
          refused = err;
        });
      expect(refused).to.be.instanceOf(RangeError);
    });

    it('gives an overview: the aggregates and the series of the window in one call, whatever the buckets', async function () {
      // 36,000 buckets of 100 ms pass the most ClickHouse counts in the headline's scan.
      const windows = [W, { start: T0 - 500, end: T0 + 7_000 }, { start: 0, end: 1 }];
      for (const w of windows) {
        for (const bucketMs of [100, 1000, 3000, 1_200_000, 3_600_000]) {
          const [a, series] = [
            await store().analytics.aggregate(P, w, 2),
            await store().analytics.series(P, w, bucketMs),
          ];
          expect(
            await store().analytics.overview(P, w, 2, bucketMs),
            `${w.start}-${w.end} by ${bucketMs}`,
          ).to.deep.equal({
            ...a,
            series,
          });
        }
      }
      const o = await store().analytics.overview(P, W, 10, 1000);
      expect(o.series.map((b) => b.sessions)).to.deep.equal([0, 0, 1, 1, 1]);
      expect(o.sessions).to.equal(3);
    });

    it('counts transitions within sessions, with start and end states', async function () {
      const t = await store().analytics.transitions(P, W);
      expect(t.sessions).to.equal(3);
      expect(t.cells).to.deep.equal([
        { from: '$start', to: 'click', count: 1 },
        { from: '$start', to: 'pageview', count: 2 },
        { from: 'click', to: '$end', count: 1 },
        { from: 'pageview', to: '$end', count: 1 },
        { from: 'pageview', to: 'pageview', count: 1 },
        { from: 'pageview', to: 'signup', count: 1 },
        { from: 'signup', to: '$end', count: 1 },
      ]);
    });

    it('counts sessions standing with a tag since a time', async function () {
      expect(await store().analytics.countTagged(P, 'buyer', T0)).to.equal(1);
      expect(await store().analytics.countTagged(P, 'buyer', T0 - 10)).to.equal(2);
      expect(await store().analytics.countTagged(P, INJECTION, 0)).to.equal(0);
    });
  });
}

const rec = (over: Partial<StoredRecord> & { id: string }): StoredRecord => ({
  kind: 'channel',
  project_id: 'p-rec',
  parent_id: '',
  sort_key: T0,
  data: { name: over.id, nested: { ok: true } },
  updated_at: T0,
  deleted: false,
  ...over,
});

export function recordCases(store: () => Store): void {
  describe('records', function () {
    it('puts and gets, the newest version winning whatever the arrival order, a later write on a tie', async function () {
      const { records } = store();
      await records.put([rec({ id: 'c1', updated_at: T0 + 2, data: { v: 2 } })]);
      await records.put([rec({ id: 'c1', updated_at: T0 + 1, data: { v: 1 } })]);
      expect((await records.get('channel', 'p-rec', 'c1'))!.data).to.deep.equal({ v: 2 });
      await records.put([rec({ id: 'c1', updated_at: T0 + 2, data: { v: 3 } })]);
      expect((await records.get('channel', 'p-rec', 'c1'))!.data).to.deep.equal({ v: 3 });
      expect(await records.get('channel', 'p-other', 'c1')).to.equal(null);
      expect(await records.get('webhook', 'p-rec', 'c1')).to.equal(null);
    });

    it('hides a deleted record from get and list', async function () {
      const { records } = store();
      await records.put([rec({ id: 'gone', updated_at: T0 })]);
      await records.put([rec({ id: 'gone', updated_at: T0 + 1, deleted: true })]);
      expect(await records.get('channel', 'p-rec', 'gone')).to.equal(null);
      expect((await records.list('channel', 'p-rec', { limit: 100 })).map((r) => r.id)).to.not.include('gone');
    });

    it('lists by project and parent, greatest sort_key first, in a range, limited; listAll spans projects', async function () {
      const { records } = store();
      await records.put(
        [1, 3, 2].map((n) =>
          rec({ kind: 'delivery', id: `d${n}`, parent_id: n === 2 ? 'w2' : 'w1', sort_key: T0 + n }),
        ),
      );
      await records.put([
        rec({ kind: 'delivery', project_id: 'p-rec-2', id: 'd9', parent_id: 'w1', sort_key: T0 + 9 }),
      ]);
      const ids = (rs: StoredRecord[]) => rs.map((r) => r.id);
      expect(ids(await records.list('delivery', 'p-rec', { limit: 10 }))).to.deep.equal(['d3', 'd2', 'd1']);
      expect(ids(await records.list('delivery', 'p-rec', { parent_id: 'w1', limit: 10 }))).to.deep.equal(['d3', 'd1']);
      expect(ids(await records.list('delivery', 'p-rec', { from: T0 + 2, to: T0 + 3, limit: 10 }))).to.deep.equal([
        'd2',
      ]);
      expect(ids(await records.list('delivery', 'p-rec', { limit: 1 }))).to.deep.equal(['d3']);
      expect(ids(await records.listAll('delivery', 10))).to.deep.equal(['d1', 'd2', 'd3', 'd9']);
      expect(await records.list('delivery', INJECTION, { parent_id: INJECTION, limit: 10 })).to.deep.equal([]);
    });

    it('purges a kind below a sort_key and leaves the rest', async function () {
      const { records } = store();
      await records.put([1, 2, 3].map((n) => rec({ kind: 'health', project_id: '', id: `h${n}`, sort_key: T0 + n })));
      await records.put([rec({ kind: 'keep', id: 'k1', sort_key: T0 })]);
      await records.purge('health', T0 + 3);
      expect((await records.list('health', '', { limit: 10 })).map((r) => r.id)).to.deep.equal(['h3']);
      expect(await records.get('keep', 'p-rec', 'k1')).to.not.equal(null);
    });
  });
}

export function sizeCases(store: () => Store): void {
  describe('size on disk', function () {
    it('reports a positive size once data is stored', async function () {
      const { events } = store();
      await events.insertRaw([{ ...raw0, event_id: 'size-1' }]);
      expect(await store().sizeBytes()).to.be.greaterThan(0);
    });

    it("reports DuckDB's memory by tag, its primary-key indexes among them; nothing for ClickHouse's own server", async function () {
      const { events } = store();
      await events.insertRaw([{ ...raw0, event_id: 'memory-1' }]);
      const memory = await store().memoryBytes();
      if (store().kind === 'clickhouse') return void expect(memory).to.deep.equal({});
      expect(memory['ART_INDEX']).to.be.greaterThan(0);
      for (const bytes of Object.values(memory)) expect(bytes).to.be.at.least(0);
    });
  });
}
