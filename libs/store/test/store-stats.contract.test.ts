// The stats query on both engines (issue 44): every answer equals a recount in JS of the seeded
// events, sessions and tags (stats-recount.ts), and where it overlaps the stored overview it
// gives the overview's numbers.
import { expect } from 'chai';
import type { EnrichedEvent, SessionState, StatsMetric } from '@spoor/schemas';
import type { StatsSpec, Store } from '../src/index.js';
import { backends, migratedStore } from './store-backends.js';
import { T0, enriched, session, statsSpec, tagFact } from './store-fixtures.js';
import { recount, type Seeded } from './stats-recount.js';

const P = 'p-stats';
const MIN = 60_000;
const HOUR = 60 * MIN;
/** Cut inside hours, so the overview reads rollups and partial hours. */
const W = { start: T0 + 30 * MIN, end: T0 + 40 * HOUR + 15 * MIN };
/** From a whole hour: time buckets of whole hours are read from the stats rollups too (stats-query.ts). */
const W_HOURS = { start: T0 + HOUR, end: T0 + 40 * HOUR + 15 * MIN };

function random(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function seed(): Seeded {
  const rnd = random(44);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!;
  const events: EnrichedEvent[] = [];
  const sessions: SessionState[] = [];
  const tags = new Map<string, string[]>();
  for (let i = 0; i < 90; i++) {
    const sid = `s${i}`;
    const visitor = Math.floor(rnd() * 35);
    const referrer = pick([
      null,
      'https://news.example.org/post?id=1',
      'https://www.google.com/',
      'https://news.example.org/',
    ]);
    const utm = {
      source: pick([null, 'news', 'mail']),
      medium: null,
      campaign: pick([null, 'spring']),
      term: null,
      content: null,
    };
    const common = {
      project_id: P,
      session_id: sid,
      ip: `198.51.100.${visitor}`,
      user_agent: `UA ${visitor % 7}`,
      geo: {
        country: pick(['DE', 'FR', 'US', null]),
        region: null,
        city: pick(['Berlin', null]),
        latitude: null,
        longitude: null,
      },
      browser: { name: pick(['Chrome', 'Firefox', 'Safari']), version: null },
      os: { name: pick(['Linux', 'iOS']), version: null },
      device: { type: pick([null, 'mobile', 'tablet']), vendor: null, model: null },
      utm,
    };
    let at = T0 + Math.floor(rnd() * 42 * HOUR);
    const mine: EnrichedEvent[] = [];
    const n = 1 + Math.floor(rnd() * 6);
    for (let k = 0; k < n; k++) {
      const action = pick(['pageview', 'pageview', 'click', 'scroll', 'signup']);
      const path = pick(['/', '/pricing', '/docs', '/blog/a']);
      mine.push(
        enriched({
          ...common,
          event_id: `${sid}-${k}`,
          action,
          timestamp: at,
          url: `https://acme.example${path}?q=1`,
          path,
          referrer: k === 0 ? referrer : null,
          payload: pick([{}, { plan: 'pro' }, { plan: 'free' }, { plan: 7 }, { plan: true }, { plan: { nested: 1 } }]),
        }),
      );
      at += (1 + Math.floor(rnd() * 9)) * MIN;
    }
    events.push(...mine);
    const actions: Record<string, number> = {};
    for (const e of mine) actions[e.action] = (actions[e.action] ?? 0) + 1;
    const first = mine[0]!;
    const last = mine[mine.length - 1]!;
    sessions.push(
      session({
        ...common,
        first_event_at: first.timestamp,
        last_event_at: last.timestamp,
        duration_ms: last.timestamp - first.timestamp,
        event_count: mine.length,
        actions,
        entry_url: first.url,
        exit_url: last.url,
        page_count: mine.filter((e) => e.action === 'pageview').length,
        referrer,
        tags: [],
      }),
    );
    if (i % 4 === 0) tags.set(sid, i % 8 === 0 ? ['buyer', 'vip'] : ['buyer']);
  }
  // Bots: stored, never counted.
  events.push(
    enriched({ event_id: 'bot-1', project_id: P, session_id: 'bot-session', bot: true, timestamp: T0 + 2 * HOUR }),
  );
  return { events, sessions, tags };
}

const DATA = seed();

function spec(over: Partial<StatsSpec> & { metrics: StatsMetric[] }): StatsSpec {
  return statsSpec({ window: W, orderBy: [[over.metrics[0]!, 'desc']], limit: 1000, ...over });
}

const ALL: StatsMetric[] = [
  'visitors',
  'sessions',
  'events',
  'pageviews',
  'bounce_rate',
  'visit_duration',
  'views_per_session',
];

const CASES: Array<[string, StatsSpec]> = [
  ['the headline, no dimension', spec({ metrics: ALL })],
  [
    'by country, Chrome sessions only',
    spec({ metrics: ALL, dimensions: ['country'], filters: [{ dimension: 'browser', op: 'is', values: ['Chrome'] }] }),
  ],
  [
    'by hour with conversions of an action',
    spec({
      metrics: ['visitors', 'events', 'sessions', 'conversions', 'conversion_rate'],
      dimensions: ['time:hour'],
      bucketMs: HOUR,
      goal: { action: 'signup' },
      orderBy: [['time:hour', 'asc']],
    }),
  ],
  [
    'by page, German sessions or pricing views',
    spec({
      metrics: ['visitors', 'pageviews', 'sessions', 'bounce_rate'],
      dimensions: ['page'],
      filters: [
        {
          or: [
            { dimension: 'country', op: 'is', values: ['DE'] },
            { dimension: 'page', op: 'contains', values: ['pric'] },
          ],
        },
      ],
    }),
  ],
  [
    'by payload property and device, no scroll',
    spec({
      metrics: ['events', 'sessions'],
      dimensions: ['payload:plan', 'device'],
      filters: [{ dimension: 'action', op: 'is_not', values: ['scroll'] }],
    }),
  ],
  [
    'by tag with a tag goal',
    spec({ metrics: ['sessions', 'events', 'conversions'], dimensions: ['tag'], goal: { tag: 'vip' } }),
  ],
  [
    'entry pages matching a pattern, untagged sessions, by referrer',
    spec({
      metrics: ['sessions', 'visit_duration', 'visitors'],
      dimensions: ['referrer', 'entry_page'],
      filters: [
        { dimension: 'entry_page', op: 'matches', values: ['^/(docs|blog)'] },
        { dimension: 'tag', op: 'is_not', values: ['buyer'] },
      ],
      orderBy: [['visitors', 'asc']],
    }),
  ],
  ['top pages, unfiltered', spec({ metrics: ['visitors', 'pageviews', 'events'], dimensions: ['page'] })],
  // Unfiltered, by at most one session dimension: visitors counted by previous hour (stats-query.ts).
  ['top browsers, unfiltered', spec({ metrics: ['visitors', 'sessions', 'pageviews'], dimensions: ['browser'] })],
  [
    'visitors by 3 hours and country from a whole hour',
    spec({
      window: W_HOURS,
      metrics: ['visitors', 'events'],
      dimensions: ['time:hour', 'country'],
      bucketMs: 3 * HOUR,
      orderBy: [['time:hour', 'asc']],
    }),
  ],
  [
    'the headline and top countries of whole hours (no edge hours)',
    spec({
      window: { start: T0 + HOUR, end: T0 + 40 * HOUR },
      metrics: ['visitors', 'pageviews', 'sessions'],
      dimensions: ['country'],
    }),
  ],
  [
    'the headline of whole hours',
    spec({ window: { start: T0 + HOUR, end: T0 + 40 * HOUR }, metrics: ['visitors', 'events', 'bounce_rate'] }),
  ],
  [
    'visitors by 5 hours from a whole hour',
    spec({
      window: W_HOURS,
      metrics: ['visitors'],
      dimensions: ['time:hour'],
      bucketMs: 5 * HOUR,
      orderBy: [['time:hour', 'asc']],
    }),
  ],
  [
    'by hour and browser from a whole hour, tagged sessions',
    spec({
      window: W_HOURS,
      metrics: ['visitors', 'events', 'pageviews', 'sessions'],
      dimensions: ['time:hour', 'browser'],
      bucketMs: HOUR,
      filters: [{ dimension: 'tag', op: 'is', values: ['buyer'] }],
      orderBy: [['time:hour', 'asc']],
    }),
  ],
  [
    'pages by 6 hours from a whole hour',
    spec({
      window: W_HOURS,
      metrics: ['visitors', 'pageviews'],
      dimensions: ['time:hour', 'page'],
      bucketMs: 6 * HOUR,
    }),
  ],
  [
    'countries of sessions outside Firefox or tagged vip, from a whole hour',
    spec({
      window: W_HOURS,
      metrics: ['visitors', 'events', 'sessions'],
      dimensions: ['country'],
      filters: [
        {
          or: [
            { dimension: 'browser', op: 'is_not', values: ['Firefox'] },
            { dimension: 'tag', op: 'is', values: ['vip'] },
          ],
        },
      ],
    }),
  ],
  ['a page of exit pages', spec({ metrics: ['sessions'], dimensions: ['exit_page'], limit: 2, offset: 1 })],
  ['past the last row', spec({ metrics: ['events'], dimensions: ['action'], limit: 5, offset: 50 })],
  [
    'utm and os with a session and an event filter',
    spec({
      metrics: ['visitors', 'sessions', 'events'],
      dimensions: ['utm_source', 'os', 'time:day'],
      bucketMs: 24 * HOUR,
      filters: [
        {
          and: [
            { dimension: 'utm_campaign', op: 'is', values: ['spring'] },
            { dimension: 'action', op: 'is', values: ['click'] },
          ],
        },
      ],
    }),
  ],
];

const close = (rows: { rows: Array<{ metrics: number[] }> }) =>
  rows.rows.map((r) => ({ ...r, metrics: r.metrics.map((m) => Math.round(m * 1e9) / 1e9) }));

for (const backend of backends) {
  describe(`Stats query: ${backend.name}`, function () {
    this.timeout(120_000);
    let store: Store;

    migratedStore(backend, (s) => (store = s));

    before(async function () {
      await store.events.insertEnriched(DATA.events);
      await store.sessions.upsert(DATA.sessions);
      await store.tags.add(
        [...DATA.tags].flatMap(([sid, tags]) =>
          tags.map((tag) => tagFact({ project_id: P, session_id: sid, tag, tagged_at: T0 })),
        ),
      );
      // A tag removed again does not stand.
      await store.tags.add([
        tagFact({ project_id: P, session_id: 's1', tag: 'buyer', tagged_at: T0, removed: true, changed_at: T0 + 1 }),
      ]);
    });

    for (const [name, s] of CASES) {
      it(`equals the recount: ${name}`, async function () {
        const got = await store.stats.query(P, s);
        const want = recount(DATA, s);
        expect(want.total, 'the recount finds rows').to.be.above(0);
        expect(got.total, 'total').to.equal(want.total);
        expect(close(got)).to.deep.equal(close(want));
      });
    }

    it('answers only the rows asked for by key', async function () {
      const s = spec({ metrics: ['sessions'], dimensions: ['country', 'browser'] });
      const all = await store.stats.query(P, s);
      const keys = all.rows.slice(0, 2).map((r) => r.dimensions.join('\u001f'));
      const some = await store.stats.query(P, { ...s, keys });
      expect(some.rows).to.deep.equal(all.rows.slice(0, 2));
    });

    it('gives the stored overview’s numbers where the two overlap', async function () {
      const o = await store.analytics.aggregate(P, W, 10);
      const [head] = (
        await store.stats.query(
          P,
          spec({ metrics: ['events', 'visitors', 'sessions', 'bounce_rate', 'visit_duration'] }),
        )
      ).rows;
      expect(head!.metrics).to.deep.equal([
        o.events,
        o.visitors,
        o.sessions,
        o.sessions ? o.bounces / o.sessions : 0,
        o.duration_ms.p50,
      ]);
      const top = async (dimension: string, metric: StatsMetric) =>
        (await store.stats.query(P, spec({ metrics: [metric], dimensions: [dimension as never], limit: 10 }))).rows.map(
          (r) => ({ name: r.dimensions[0], count: r.metrics[0] }),
        );
      expect(await top('page', 'pageviews')).to.deep.equal(o.pages);
      expect(await top('referrer', 'sessions')).to.deep.equal(o.referrers);
      expect(await top('utm_source', 'sessions')).to.deep.equal(o.utm_sources);
      expect(await top('country', 'sessions')).to.deep.equal(o.countries);
      expect(await top('browser', 'sessions')).to.deep.equal(o.browsers);
      expect(await top('device', 'sessions')).to.deep.equal(o.devices);
      expect(await top('tag', 'sessions')).to.deep.equal(o.tags);
    });

    it('binds values: a quote in a filter is a value, not SQL', async function () {
      const got = await store.stats.query(
        P,
        spec({
          metrics: ['events'],
          filters: [{ dimension: 'payload:plan', op: 'is', values: [`'; DROP TABLE x; --`] }],
        }),
      );
      expect(got.rows[0]!.metrics).to.deep.equal([0]);
    });

    // Last: these store more, each on what the one before stored. The stats rollups of an hour
    // already read are rebuilt with its late events and its sessions' later summaries.
    let stored: Seeded = DATA;

    it('counts the events stored after a query that read the rollups', async function () {
      const s = spec({ metrics: ['visitors', 'events', 'pageviews'], dimensions: ['browser'] });
      await store.stats.query(P, s);
      const late = enriched({
        ...DATA.events[0]!,
        event_id: 'late-1',
        ip: '203.0.113.9',
        action: 'pageview',
        timestamp: T0 + 5 * HOUR + 7 * MIN,
      });
      await store.events.insertEnriched([late]);
      const got = await store.stats.query(P, s);
      stored = { ...stored, events: [...stored.events, late] };
      expect(close(got)).to.deep.equal(close(recount(stored, s)));
      expect(got).to.not.deep.equal(recount(DATA, s));
    });

    it('follows a session’s summary written after a query read its hours', async function () {
      const specs = [
        spec({ metrics: ['visitors', 'events'], dimensions: ['browser'] }),
        spec({ window: W_HOURS, metrics: ['visitors', 'pageviews'], dimensions: ['exit_page'] }),
        spec({ metrics: ['visitors'], filters: [{ dimension: 'browser', op: 'is_not', values: ['Edge'] }] }),
      ];
      for (const s of specs) await store.stats.query(P, s);
      // A session of several hours, seen in the window, now in another browser and leaving
      // elsewhere. Its events are within its first and last (a session's, as the sessionizer
      // writes it; the late event above is not, in s0).
      const within = (x: SessionState) =>
        stored.events.every(
          (e) => e.session_id !== x.session_id || (e.timestamp >= x.first_event_at && e.timestamp <= x.last_event_at),
        );
      const old = stored.sessions.find(
        (x) =>
          x.first_event_at > W.start + HOUR &&
          Math.floor(x.last_event_at / HOUR) > Math.floor(x.first_event_at / HOUR) &&
          within(x),
      )!;
      const changed = {
        ...old,
        browser: { name: 'Edge', version: null },
        exit_url: 'https://acme.example/thanks',
        updated_at: old.updated_at + 1,
      };
      await store.sessions.upsert([changed]);
      stored = { ...stored, sessions: stored.sessions.map((x) => (x.session_id === old.session_id ? changed : x)) };
      for (const s of specs) {
        const got = await store.stats.query(P, s);
        expect(close(got), JSON.stringify(s.dimensions)).to.deep.equal(close(recount(stored, s)));
      }
      const browsers = await store.stats.query(P, specs[0]!);
      expect(browsers.rows.map((r) => r.dimensions[0])).to.include('Edge');
    });

    it('counts a page’s visitor once, whichever of their hours is stored last', async function () {
      const from = (start: number) =>
        spec({ window: { start, end: W.end }, metrics: ['visitors', 'pageviews'], dimensions: ['page'] });
      const windows = [T0 + 3 * HOUR, T0 + 5 * HOUR, T0 + 5 * HOUR + 20 * MIN, W.start];
      for (const start of windows) await store.stats.query(P, from(start));
      // A visitor of a page in a late hour is seen on it before the window, and in an earlier hour
      // of it; another visitor is new; each of the later rows of that pair has an earlier one now.
      const seen = stored.events.find((e) => e.action === 'pageview' && e.timestamp > T0 + 20 * HOUR)!;
      const late = [
        enriched({ ...seen, event_id: 'late-p1', timestamp: T0 + 4 * HOUR + 5 * MIN }),
        enriched({ ...seen, event_id: 'late-p2', timestamp: T0 + 2 * HOUR }),
        enriched({ ...seen, event_id: 'late-p3', ip: '203.0.113.77', timestamp: T0 + 5 * HOUR + 10 * MIN }),
      ];
      await store.events.insertEnriched(late);
      stored = { ...stored, events: [...stored.events, ...late] };
      for (const start of windows) {
        const s = from(start);
        expect(close(await store.stats.query(P, s)), `from ${start - T0}`).to.deep.equal(close(recount(stored, s)));
      }
    });

    it('forgets the previous hours that retention deleted', async function () {
      const before = T0 + 5 * HOUR + 10 * MIN;
      await store.expiry.expire(P, before);
      const sessions = stored.sessions.filter((x) => x.last_event_at >= before);
      const kept = new Set(sessions.map((x) => x.session_id));
      stored = {
        events: stored.events.filter((e) => e.timestamp >= before),
        sessions,
        tags: new Map([...stored.tags].filter(([sid]) => kept.has(sid))),
      };
      for (const start of [W.start, T0 + 3 * HOUR, T0 + 6 * HOUR]) {
        for (const s of [
          spec({ window: { start, end: W.end }, metrics: ['visitors', 'pageviews'], dimensions: ['page'] }),
          spec({ window: { start, end: W.end }, metrics: ['visitors', 'sessions'], dimensions: ['country'] }),
        ]) {
          const want = recount(stored, s);
          expect(want.total).to.be.above(0);
          expect(close(await store.stats.query(P, s)), `from ${start - T0}`).to.deep.equal(close(want));
        }
      }
    });
  });
}
