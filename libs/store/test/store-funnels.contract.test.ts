// Funnels and retention on both engines (issue 18): hand-made sessions whose answers are worked
// out below, the same answers from every engine and from both evaluation paths (SQL, and
// json-logic-js in TypeScript), compiled step conditions checked against json-logic-js on
// awkward payloads, and retention against a recount of generated visits.
import { expect } from 'chai';
import type { EnrichedEvent, FunnelStepInput } from '@spoor/schemas';
import { compileFunnelStep } from '@spoor/rules';
import type { FunnelCounts, FunnelSpec, Store } from '../src/index.js';
import { backends, migratedStore } from './store-backends.js';
import { T0, enriched } from './store-fixtures.js';

const P = 'p-funnel';
const MIN = 60_000;
const W = { start: T0, end: T0 + 86_400_000 };

const buyCompiled: FunnelStepInput = {
  logic: { and: [{ '==': [{ var: 'action' }, 'click'] }, { '===': [{ var: 'payload.text' }, 'Buy now'] }] },
};
/** The same events, by a condition SQL cannot evaluate exactly (`in` on a payload value). */
const buyInTypeScript: FunnelStepInput = {
  logic: { and: [{ '==': [{ var: 'action' }, 'click'] }, { in: ['Buy', { var: 'payload.text' }] }] },
};
const STEPS = (buy: FunnelStepInput): FunnelStepInput[] => [
  { action: 'pageview' },
  buy,
  { action: 'signup', where: { plan: 'team' } },
];

type Ev = [action: string, atMs: number, payload?: Record<string, unknown>];
const view = (at: number): Ev => ['pageview', at];
const buy = (at: number): Ev => ['click', at, { text: 'Buy now' }];
const team = (at: number): Ev => ['signup', at, { plan: 'team' }];

/** Sessions a–i (g a bot, h before the window); a and c are one visitor. */
const SESSIONS: Record<string, { base: number; browser: string | null; ip?: string; bot?: boolean; events: Ev[] }> = {
  a: { base: T0, browser: 'Chrome', ip: '198.51.100.1', events: [view(0), buy(MIN), team(2 * MIN)] },
  b: { base: T0 + 2 * 3_600_000, browser: 'Firefox', events: [buy(0), view(MIN), team(2 * MIN)] }, // out of order
  c: { base: T0 + 3_600_000, browser: 'Chrome', ip: '198.51.100.1', events: [view(0), buy(5 * MIN), team(15 * MIN)] }, // step 3 past the 10 min window
  d: {
    base: T0 + 4 * 3_600_000,
    browser: 'Chrome',
    events: [view(0), view(20 * MIN), buy(21 * MIN), team(22 * MIN), buy(23 * MIN)],
  }, // repeated steps
  e: {
    base: T0 + 5 * 3_600_000,
    browser: 'Firefox',
    events: [view(0), ['click', MIN, { text: 'Read more' }], team(2 * MIN)],
  },
  f: {
    base: T0 + 6 * 3_600_000,
    browser: 'Safari',
    events: [view(0), buy(MIN), ['signup', 2 * MIN, { plan: 'solo' }]],
  },
  g: { base: T0 + 7 * 3_600_000, browser: 'Chrome', bot: true, events: [view(0), buy(MIN), team(2 * MIN)] },
  h: { base: T0 - 3_600_000, browser: 'Chrome', events: [view(0), buy(MIN), team(2 * MIN)] },
  i: { base: T0 + 8 * 3_600_000, browser: null, events: [view(0), buy(0), team(MIN)] }, // steps 1 and 2 in the same ms
};

function fixtureEvents(project: string): EnrichedEvent[] {
  return Object.entries(SESSIONS).flatMap(([sid, s], si) =>
    s.events.map(([action, at, payload], i) =>
      enriched({
        event_id: `${sid}-${i}`,
        project_id: project,
        session_id: sid,
        action,
        timestamp: s.base + at,
        payload: payload ?? {},
        bot: s.bot ?? false,
        ip: s.ip ?? `203.0.113.${si + 10}`,
        browser: { name: s.browser, version: null },
        path: action === 'pageview' ? `/p-${sid}` : '/a',
      }),
    ),
  );
}

function spec(steps: FunnelStepInput[], over: Partial<FunnelSpec> = {}): FunnelSpec {
  return {
    window: W,
    steps: steps.map(compileFunnelStep),
    unit: 'session',
    order: 'strict',
    conversionWindowMs: 10 * MIN,
    breakdown: null,
    ...over,
  };
}

const entered = (c: FunnelCounts) => c.total.map((s) => s.entered);
const medians = (c: FunnelCounts) => c.total.map((s) => s.medianMsToNext);

for (const backend of backends) {
  describe(`Funnels and retention: ${backend.name}`, function () {
    this.timeout(60_000);
    let store: Store;

    migratedStore(backend, (s) => (store = s));

    before(async function () {
      await store.events.insertEnriched([...fixtureEvents(P), ...fixtureEvents('p-funnel-other')]);
      await store.events.insertEnriched(fixtureEvents(P).slice(0, 2)); // a redelivery counts once
    });

    for (const [label, step2, path] of [
      ['a compiled JSONLogic step', buyCompiled, 'sql'],
      ['a step json-logic-js decides', buyInTypeScript, 'typescript'],
    ] as const) {
      describe(`with ${label}`, function () {
        it('strict order per session: out-of-order, late, repeated and same-millisecond steps, bots and other windows left out', async function () {
          const c = await store.funnels.query(P, spec(STEPS(step2)));
          expect(c.evaluatedIn).to.equal(path);
          expect(entered(c)).to.deep.equal([7, 4, 2]); // a b c d e f i; a c d f; a d
          expect(medians(c)).to.deep.equal([180_000, 60_000, null]); // median of 1, 5, 21, 1 min; of 1, 1 min
        });

        it('any order per session', async function () {
          const c = await store.funnels.query(P, spec(STEPS(step2), { order: 'any' }));
          expect(entered(c)).to.deep.equal([7, 6, 4]); // + b and i reach all three
          expect(medians(c)).to.deep.equal([60_000, 60_000, null]); // median of 1, 0, 5, 21, 1, 0 min
        });

        it('per visitor: sessions a and c are one visitor', async function () {
          const c = await store.funnels.query(P, spec(STEPS(step2), { unit: 'visitor' }));
          expect(entered(c)).to.deep.equal([6, 3, 2]);
          expect(medians(c)).to.deep.equal([60_000, 60_000, null]);
        });

        it('broken down by browser, most entered first, unknown last', async function () {
          const c = await store.funnels.query(P, spec(STEPS(step2), { breakdown: 'browser' }));
          expect(entered(c)).to.deep.equal([7, 4, 2]);
          expect(
            c.groups.map((g) => [g.value, g.steps.map((s) => s.entered), g.steps[0]!.medianMsToNext]),
          ).to.deep.equal([
            ['Chrome', [3, 3, 2], 300_000],
            ['Firefox', [2, 0, 0], null],
            ['Safari', [1, 1, 0], 60_000],
            [null, [1, 0, 0], null],
          ]);
        });

        it('a one-minute conversion window and an empty window', async function () {
          expect(entered(await store.funnels.query(P, spec(STEPS(step2), { conversionWindowMs: MIN })))).to.deep.equal([
            7, 3, 0,
          ]);
          expect(
            entered(await store.funnels.query(P, spec(STEPS(step2), { window: { start: 0, end: 1 } }))),
          ).to.deep.equal([0, 0, 0]);
        });
      });
    }

    it('a step repeated: strict order needs a second event in a later millisecond, any order lets one event count twice', async function () {
      const views: FunnelStepInput[] = [{ action: 'pageview' }, { action: 'pageview' }];
      // Only d has two page views, 20 minutes apart.
      expect(entered(await store.funnels.query(P, spec(views)))).to.deep.equal([7, 0]);
      const wide = await store.funnels.query(P, spec(views, { conversionWindowMs: 30 * MIN }));
      expect(entered(wide)).to.deep.equal([7, 1]);
      expect(medians(wide)).to.deep.equal([20 * MIN, null]);
      const any = await store.funnels.query(P, spec(views, { order: 'any' }));
      expect(entered(any)).to.deep.equal([7, 7]);
      expect(medians(any)).to.deep.equal([0, null]);
    });

    it('a long session sent newest first counts as in time order', async function () {
      const L = 'p-funnel-long';
      // 35 page views a minute apart, then Buy at minute 35 and the team signup at 36: more events than a short list holds.
      const evs: Ev[] = [...Array.from({ length: 35 }, (_, m) => view(m * MIN)), buy(35 * MIN), team(36 * MIN)];
      await store.events.insertEnriched(
        evs
          .map(([action, at, payload], i) =>
            enriched({
              event_id: `long-${i}`,
              project_id: L,
              session_id: 'long',
              action,
              timestamp: T0 + at,
              payload: payload ?? {},
              bot: false,
            }),
          )
          .reverse(),
      );
      for (const step2 of [buyCompiled, buyInTypeScript]) {
        const c = await store.funnels.query(L, spec(STEPS(step2)));
        expect(entered(c)).to.deep.equal([1, 1, 1]);
        // From the first page view to Buy; Buy is reached from the page view at minute 34, within 10 minutes.
        expect(medians(c)).to.deep.equal([35 * MIN, MIN, null]);
      }
    });

    it('puts the unknown (null) group last even when it has the most units (issue 43; docs/analytics.md)', async function () {
      const N = 'p-funnel-null-last';
      const browsers = [null, null, null, 'Safari', 'Chrome', 'Chrome'];
      await store.events.insertEnriched(
        browsers.flatMap((name, i) =>
          [view(0), team(MIN)].map(([action, at, payload], k) =>
            enriched({
              event_id: `n${i}-${k}`,
              project_id: N,
              session_id: `n${i}`,
              action,
              timestamp: T0 + i * 3_600_000 + at,
              payload: payload ?? {},
              ip: `203.0.113.${i + 100}`,
              browser: { name, version: null },
            }),
          ),
        ),
      );
      const c = await store.funnels.query(
        N,
        spec([{ action: 'pageview' }, { action: 'signup' }], { breakdown: 'browser' }),
      );
      expect(c.groups.map((g) => [g.value, g.steps[0]!.entered])).to.deep.equal([
        ['Chrome', 2],
        ['Safari', 1],
        [null, 3],
      ]);
    });

    it("breaks down by entry page: the path of the unit's first event in the window", async function () {
      const c = await store.funnels.query(P, spec(STEPS(buyCompiled), { breakdown: 'entry_page' }));
      // b starts with a click; i's page view and click share a millisecond, the page view's event id is first.
      expect(c.groups.map((g) => g.value)).to.deep.equal(['/a', '/p-a', '/p-c', '/p-d', '/p-e', '/p-f', '/p-i']);
      expect(c.groups.map((g) => g.steps[2]!.entered)).to.deep.equal([0, 1, 0, 1, 0, 0, 0]);
    });

    describe('compiled conditions agree with json-logic-js', function () {
      const Q = 'p-predicates';
      const payloads: Array<Record<string, unknown>> = [
        { text: 'Buy now' },
        { text: 3 },
        { text: '3' },
        { text: ['Buy now'] },
        { text: null },
        {},
        { text: true },
        { text: '' },
        { text: { a: 1 } },
        { nested: { plan: 'team' } },
        { nested: 'team' },
        { 'we/ird~key': 'x' },
      ];
      const events = payloads.map((payload, i) =>
        enriched({
          event_id: `q${i}`,
          project_id: Q,
          session_id: `q${i}`,
          timestamp: T0 + i,
          payload,
          action: i % 2 ? 'click' : 'pageview',
          path: i % 3 ? '/pricing' : '',
          query: i % 4 ? { ref: 'news' } : {},
          utm: { source: i % 5 ? 'news' : null, medium: null, campaign: null, term: null, content: null },
        }),
      );
      const conditions: unknown[] = [
        { '===': [{ var: 'payload.text' }, 'Buy now'] },
        { '===': [{ var: 'payload.text' }, 3] },
        { '===': [{ var: 'payload.text' }, true] },
        { '===': [{ var: 'payload.text' }, null] },
        { '==': [{ var: 'payload.text' }, null] },
        { '!=': [null, { var: 'payload.text' }] },
        { '!==': [{ var: 'payload.text' }, '3'] },
        { '===': [{ var: 'payload.nested.plan' }, 'team'] },
        { '===': [{ var: 'payload.we/ird~key' }, 'x'] },
        { in: ['pric', { var: 'path' }] },
        { in: ['', { var: 'path' }] },
        { in: [{ var: 'action' }, ['click', null]] },
        { in: [{ var: 'utm.source' }, ['news', null]] },
        { '==': [{ var: 'query.ref' }, 'news'] },
        { '==': [{ var: 'query.ref' }, null] },
        { in: ['ew', { var: 'query.ref' }] },
        { or: [{ '!': { '==': [{ var: 'action' }, 'click'] } }, { '===': [{ var: 'geo.country' }, 'DE'] }] },
        { '!!': [{ '===': [{ var: 'utm.source' }, 'news'] }] },
        { '==': [{ var: 'path' }, 3] },
      ];

      before(async function () {
        await store.events.insertEnriched(events);
      });

      it('counts the same events in SQL, in TypeScript and in memory', async function () {
        for (const logic of conditions) {
          const step = compileFunnelStep({ logic }, 0);
          const oneStep = (predicate: typeof step.predicate): FunnelSpec => ({
            ...spec([]),
            steps: [{ ...step, predicate }],
            window: { start: T0, end: T0 + 100 },
          });
          const expected = events.filter((e) => step.matches(e)).length;
          const ts = await store.funnels.query(Q, oneStep(null));
          expect(ts.evaluatedIn).to.equal('typescript');
          expect(entered(ts), JSON.stringify(logic)).to.deep.equal([expected]);
          if (step.predicate === null) continue;
          const sql = await store.funnels.query(Q, oneStep(step.predicate));
          expect(sql.evaluatedIn).to.equal('sql');
          expect(entered(sql), `SQL: ${JSON.stringify(logic)}`).to.deep.equal([expected]);
        }
      });
    });

    describe('retention', function () {
      const R = 'p-retention';
      const DAY = 86_400_000;
      // 40 visitors; visitor v first comes on day v % 5 (some before the window), then on each day d where (v * d) % 3 == 0.
      const visits: Array<{ v: number; day: number; action: string }> = [];
      for (let v = 0; v < 40; v++) {
        const first = (v % 7) - 1; // day -1: first seen before the window
        visits.push({ v, day: first, action: 'pageview' });
        for (let d = first + 1; d < 8; d++)
          if ((v * d) % 3 === 0) visits.push({ v, day: d, action: d % 2 ? 'signup' : 'click' });
      }

      before(async function () {
        await store.events.insertEnriched(
          visits.map((x, i) =>
            enriched({
              event_id: `r${i}`,
              project_id: R,
              session_id: `r${x.v}-${x.day}`,
              action: x.action,
              timestamp: T0 + x.day * DAY + 3_600_000 + x.v,
              ip: `192.0.2.${x.v}`,
              bot: false,
            }),
          ),
        );
      });

      function recount(action: string | null, days: number) {
        const firstDay = new Map<number, number>();
        for (const x of visits) firstDay.set(x.v, Math.min(firstDay.get(x.v) ?? Infinity, x.day));
        return Array.from({ length: days }, (_, c) => {
          const cohort = [...firstDay].filter(([, d]) => d === c).map(([v]) => v);
          const returning = Array.from({ length: days - c }, (_, k) =>
            k === 0
              ? cohort.length
              : cohort.filter((v) =>
                  visits.some((x) => x.v === v && x.day === c + k && (action === null || x.action === action)),
                ).length,
          );
          return { start: T0 + c * DAY, size: cohort.length, returning };
        });
      }

      it('matches a recount by day, for any event and for one action', async function () {
        const window = { start: T0, end: T0 + 7 * DAY };
        expect(await store.retention.cohorts(R, { window, periodMs: DAY, action: null })).to.deep.equal(
          recount(null, 7),
        );
        expect(await store.retention.cohorts(R, { window, periodMs: DAY, action: 'signup' })).to.deep.equal(
          recount('signup', 7),
        );
        const cohorts = recount(null, 7);
        expect(cohorts.reduce((n, c) => n + c.size, 0)).to.equal(34); // the 6 visitors first seen on day -1 are no cohort's
      });
    });
  });
}
