// Contract cases for the overview's event figures and the transition matrix against a recount
// in JS of the events stored, on windows that cut hours anywhere, while events arrive late into
// hours already summed, repeats arrive, a visitor is erased and old events expire (issue 15,
// target 6: DuckDB answers whole hours from rollups, docs/analytics.md). Registered by
// store.contract.test.ts inside each backend's suite.
import { expect } from 'chai';
import { PAGE_VIEW_ACTIONS, type EnrichedEvent } from '@spoor/schemas';
import type { Store, Window } from '../src/index.js';
import { T0, enriched } from './store-fixtures.js';

const P = 'p-rollups';
const H = 3_600_000;
const H0 = T0 + 10 * 24 * H;
const ACTIONS = ['pageview', 'click', 'scroll', 'signup', 'add_to_cart'];
const PATHS = ['/', '/pricing', '/docs', undefined];

/** The windows checked: five whole hours, hours cut at both ends, inside one hour, one whole hour between two cut. */
const WINDOWS: Window[] = [
  { start: H0, end: H0 + 5 * H },
  { start: H0 + 17 * 60_000, end: H0 + 4 * H + 3 * 60_000 },
  { start: H0 + H + 5 * 60_000, end: H0 + H + 50 * 60_000 },
  { start: H0 + 30 * 60_000, end: H0 + 2 * H + 10 * 60_000 },
  { start: H0 - H, end: H0 + 7 * H },
  { start: H0 + 17 * 60_000 + 23_456, end: H0 + 4 * H + 3 * 60_000 + 7 },
];

/** A seeded generator: the same events on every run and engine. */
function random(seed: number): () => number {
  let s = seed;
  return () => {
    s = (s * 1_103_515_245 + 12_345) % 2_147_483_648;
    return s / 2_147_483_648;
  };
}

/** Sessions of 1–12 events, some crossing hours, some at the same millisecond; a few bots. */
function dataset(seed: number, sessions: number, eventPrefix: string): EnrichedEvent[] {
  const r = random(seed);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(r() * xs.length)]!;
  const out: EnrichedEvent[] = [];
  for (let s = 0; s < sessions; s++) {
    const sessionId = `s${s}`;
    let at = H0 + Math.floor(r() * 5 * H);
    const n = 1 + Math.floor(r() * 12);
    const ip = `198.51.100.${Math.floor(r() * 8)}`;
    const ua = pick(['UA-a', 'UA-b', 'UA-c']);
    const bot = r() < 0.05;
    for (let i = 0; i < n; i++) {
      out.push(
        enriched({
          event_id: `${eventPrefix}-${s}-${i}`,
          project_id: P,
          session_id: sessionId,
          action: i === 0 ? 'pageview' : pick(ACTIONS),
          path: pick(PATHS),
          timestamp: at,
          ip,
          user_agent: ua,
          bot,
        }),
      );
      if (r() > 0.1) at += Math.floor(r() * 25 * 60_000);
    }
  }
  return out;
}

/** One long session with an event every 7.001 s: every minute a bucket start cuts has events on both sides of it. */
function denseSession(): EnrichedEvent[] {
  return Array.from({ length: Math.floor((5 * H) / 7001) }, (_, i) =>
    enriched({
      event_id: `dense-${i}`,
      project_id: P,
      session_id: 'dense',
      action: ACTIONS[i % ACTIONS.length]!,
      path: PATHS[i % PATHS.length],
      timestamp: H0 + i * 7001,
      ip: `198.51.100.${20 + (i % 5)}`,
      user_agent: 'UA-dense',
      bot: false,
    }),
  );
}

const byCount = (m: Map<string, number>) =>
  [...m]
    .map(([name, count]) => ({ name, count }))
    .sort((a, b) => b.count - a.count || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));

const add = (m: Map<string, number>, k: string, n = 1) => m.set(k, (m.get(k) ?? 0) + n);

/** The figures the store must give, counted from the events it holds. */
function recount(stored: readonly EnrichedEvent[], w: Window) {
  const inside = stored.filter((e) => !e.bot && e.timestamp >= w.start && e.timestamp < w.end);
  const actions = new Map<string, number>();
  const pages = new Map<string, number>();
  const paths = new Map<string, EnrichedEvent[]>();
  for (const e of inside) {
    add(actions, e.action);
    if (PAGE_VIEW_ACTIONS.has(e.action) && typeof e.path === 'string') add(pages, e.path);
    paths.set(e.session_id, [...(paths.get(e.session_id) ?? []), e]);
  }
  const cells = new Map<string, number>();
  for (const path of paths.values()) {
    path.sort((a, b) => a.timestamp - b.timestamp || (a.event_id < b.event_id ? -1 : 1));
    const states = ['$start', ...path.map((e) => e.action), '$end'];
    for (let i = 1; i < states.length; i++) add(cells, `${states[i - 1]}\u0000${states[i]}`);
  }
  return {
    events: inside.length,
    visitors: new Set(inside.map((e) => `${e.ip}\u0000${e.user_agent}`)).size,
    actions: byCount(actions),
    pages: byCount(pages),
    sessions: paths.size,
    cells: [...cells]
      .map(([k, count]) => {
        const [from, to] = k.split('\u0000') as [string, string];
        return { from, to, count };
      })
      .sort((a, b) => (a.from < b.from ? -1 : a.from > b.from ? 1 : a.to < b.to ? -1 : a.to > b.to ? 1 : 0)),
  };
}

/** Bucket lengths checked: under an hour, an hour, a length no hour divides, six hours. */
const BUCKETS = [15 * 60_000, H, 2.5 * H, 6 * H];

/** Events and visitors per bucket from the window's start, empty buckets left out (the project has no sessions). */
function recountSeries(stored: readonly EnrichedEvent[], w: Window, bucketMs: number) {
  const buckets = new Map<number, EnrichedEvent[]>();
  for (const e of stored) {
    if (e.bot || e.timestamp < w.start || e.timestamp >= w.end) continue;
    const b = Math.floor((e.timestamp - w.start) / bucketMs);
    buckets.set(b, [...(buckets.get(b) ?? []), e]);
  }
  return [...buckets]
    .sort(([a], [b]) => a - b)
    .map(([b, events]) => ({
      start: w.start + b * bucketMs,
      events: events.length,
      visitors: new Set(events.map((e) => `${e.ip}\u0000${e.user_agent}`)).size,
      sessions: 0,
    }));
}

async function expectRecount(store: Store, stored: readonly EnrichedEvent[]): Promise<void> {
  for (const w of WINDOWS) {
    const a = await store.analytics.aggregate(P, w, 100);
    for (const bucketMs of BUCKETS) {
      const series = recountSeries(stored, w, bucketMs);
      expect(await store.analytics.series(P, w, bucketMs), `series of ${bucketMs} ms`).to.deep.equal(series);
      expect(await store.analytics.overview(P, w, 100, bucketMs), `overview by ${bucketMs} ms`).to.deep.equal({
        ...a,
        series,
      });
    }
    const want = recount(stored, w);
    const t = await store.analytics.transitions(P, w);
    const label = `window ${w.start - H0}..${w.end - H0}`;
    expect({ events: a.events, visitors: a.visitors, actions: a.actions, pages: a.pages }, label).to.deep.equal({
      events: want.events,
      visitors: want.visitors,
      actions: want.actions,
      pages: want.pages,
    });
    expect(t, label).to.deep.equal({ sessions: want.sessions, cells: want.cells });
  }
}

export function rollupCases(store: () => Store): void {
  describe('event figures and transitions against a recount', function () {
    const first = [...dataset(7, 60, 'a'), ...denseSession()];
    const late = dataset(11, 40, 'late');
    const stored = new Map<string, EnrichedEvent>();
    const keep = (events: EnrichedEvent[]) => {
      for (const e of events) if (!stored.has(e.event_id)) stored.set(e.event_id, e);
    };

    it('match on windows cut anywhere, the hours summed before late events, repeats and other sessions arrived', async function () {
      // Late events land in the same hours and in the first batch's sessions (s0…s39), between
      // and around their events.
      const lateOnly = late;
      await store().events.insertEnriched(first.slice(0, 200));
      keep(first.slice(0, 200));
      await expectRecount(store(), [...stored.values()]);
      await store().events.insertEnriched([...first.slice(200), ...first.slice(0, 20)]);
      keep(first);
      // Repeats with a corrected timestamp, into other hours and the windows' cut ends: the
      // version stored first stands.
      await store().events.insertEnriched(
        first.slice(20, 60).map((e) => ({ ...e, timestamp: e.timestamp + 37 * 60_000 })),
      );
      await expectRecount(store(), [...stored.values()]);
      await expectRecount(store(), [...stored.values()]);
      await store().events.insertEnriched(lateOnly);
      keep(lateOnly);
      expect(lateOnly.length).to.be.greaterThan(50);
      await expectRecount(store(), [...stored.values()]);
    });

    it('match after a visitor is erased and old events expire', async function () {
      const crossing = [...stored.values()].find((e) =>
        [...stored.values()].some(
          (o) => o.session_id === e.session_id && Math.floor(o.timestamp / H) !== Math.floor(e.timestamp / H),
        ),
      )!;
      await store().erasure.eraseVisitor(P, { session_id: crossing.session_id });
      for (const [id, e] of stored) if (e.session_id === crossing.session_id) stored.delete(id);
      await expectRecount(store(), [...stored.values()]);
      const cut = H0 + 2 * H + 7 * 60_000;
      await store().expiry.expire(P, cut);
      for (const [id, e] of stored) if (e.timestamp < cut) stored.delete(id);
      await expectRecount(store(), [...stored.values()]);
    });
  });
}
