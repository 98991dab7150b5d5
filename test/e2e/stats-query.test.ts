// Issue 44 through the HTTP API in both modes: POST /v1/stats/query for the figures with a
// comparison, a time series, top-N lists, filters and a goal; its 401, 404, 403 (the DNS gate on
// payload properties) and 422s with `loc`. The counting itself is checked on both engines
// against a recount by the store's contract (libs/store/test/store-stats.contract.test.ts).
import { expect } from 'chai';
import { requireEngine } from '@spoor/testkit';
import { ApiClient, signUp } from '../support/api-client.js';
import { MODES } from '../support/engine-env.js';
import { postAsBrowser, startSpoor, waitFor, type Harness } from '../support/spoor-harness.js';

for (const mode of MODES) {
  describe(`Stats query over HTTP: ${mode}`, function () {
    this.timeout(240_000);
    let spoor: Harness;
    let api: ApiClient;
    let other: ApiClient;
    const origin = 'http://localhost:4230';
    const scope = { origin, project: 'stats/web' };
    const unverified = { origin: 'https://unverified-stats.example', project: 'stats/web' };
    const t0 = Date.now() - 20 * 60_000;
    const range = { start: t0 - 60_000, end: Date.now() + 60_000 };
    const query = (body: Record<string, unknown>, client = api) =>
      client.post('/v1/stats/query', { ...scope, date_range: range, ...body });

    async function send(sessionId: string, actions: string[], over: Record<string, unknown> = {}) {
      const body = actions.map((action, i) => ({
        project: scope.project,
        action,
        timestamp: t0 + i * 1000,
        session_id: sessionId,
        url: `${origin}/p${i}?utm_source=${sessionId === 'a' ? 'news' : 'mail'}`,
        referrer: i === 0 ? 'https://news.example.org/post' : undefined,
        payload: { plan: sessionId === 'a' ? 'team' : 'free' },
        ...over,
      }));
      expect((await postAsBrowser(spoor.url, origin, body)).status).to.equal(200);
    }

    before(async function () {
      const started = await startSpoor(mode);
      requireEngine(this, started ? 'ok' : null, `engines for ${mode} mode`);
      spoor = started!;
      api = await signUp(spoor.url);
      other = await signUp(spoor.url);
      for (const s of [scope, unverified]) expect((await api.post('/v1/users/projects', s)).status).to.equal(200);
      await send('a', ['pageview', 'pageview', 'signup']);
      await send('b', ['pageview']);
      await send('c', ['pageview', 'click']);
      await waitFor(
        () => api.get('/v1/sessions', { ...scope, limit: 10 }),
        (r) =>
          r.body?.sessions?.length === 3 && r.body.sessions.every((s: { event_count: number }) => s.event_count > 0),
        60_000,
        'three sessions',
      );
      await waitFor(
        () => query({ metrics: ['events'] }),
        (r) => r.body?.results?.[0]?.metrics?.[0] === 6,
        60_000,
        'six events',
      );
    });

    after(async function () {
      await spoor?.stop();
    });

    it('answers the figures, with the previous period beside them', async function () {
      const res = await query({
        metrics: ['visitors', 'sessions', 'events', 'pageviews', 'bounce_rate', 'views_per_session'],
        compare: 'previous_period',
      });
      expect(res.status, res.text).to.equal(200);
      expect(res.body).to.include({
        origin,
        project: scope.project,
        timezone: 'UTC',
        total_rows: 1,
        time_bucket_ms: null,
      });
      expect(res.body.date_range).to.deep.equal(range);
      expect(res.body.compare_range).to.deep.equal({ start: 2 * range.start - range.end, end: range.start });
      expect(res.body.results).to.deep.equal([
        {
          dimensions: [],
          metrics: [1, 3, 6, 4, 2 / 3, 4 / 3],
          comparison: { metrics: [0, 0, 0, 0, 0, 0], change: [null, null, null, null, 2 / 3, null] },
        },
      ]);
    });

    it('answers a time series and top-N lists; a filter and a goal', async function () {
      const series = await query({ metrics: ['events'], dimensions: ['time'], date_range: '24h' });
      expect(series.status, series.text).to.equal(200);
      expect(series.body.time_bucket_ms).to.equal(3_600_000);
      expect(series.body.results.reduce((n: number, r: { metrics: number[] }) => n + r.metrics[0]!, 0)).to.equal(6);
      const pages = await query({ metrics: ['pageviews'], dimensions: ['page'], limit: 1 });
      expect(pages.body.results.map((r: { dimensions: string[] }) => r.dimensions)).to.deep.equal([['/p0']]);
      expect(pages.body.total_rows).to.equal(2);
      const sources = await query({ metrics: ['sessions'], dimensions: ['utm_source', 'referrer'] });
      expect(sources.body.results).to.deep.equal([
        { dimensions: ['mail', 'news.example.org'], metrics: [2], comparison: null },
        { dimensions: ['news', 'news.example.org'], metrics: [1], comparison: null },
      ]);
      const goal = await query({
        metrics: ['sessions', 'conversions', 'conversion_rate'],
        goal: { action: 'signup' },
        filters: [{ dimension: 'page', op: 'is', values: ['/p1'] }],
      });
      // Only session a viewed /p1 (c's event there is a click, not a page view).
      expect(goal.body.results[0].metrics).to.deep.equal([1, 1, 1]);
      const plan = await query({ metrics: ['visitors', 'events'], dimensions: ['payload:plan'] });
      expect(plan.status, plan.text).to.equal(200);
      expect(plan.body.results.map((r: { dimensions: string[] }) => r.dimensions[0])).to.deep.equal(['free', 'team']);
    });

    it('answers 401 without credentials and 404 for another account’s project', async function () {
      expect((await query({ metrics: ['events'] }, api.withToken(null))).status).to.equal(401);
      const res = await query({ metrics: ['events'] }, other);
      expect(res.status).to.equal(404);
      expect(res.body).to.deep.equal({ detail: 'Project not found' });
    });

    it('answers 403 to a payload property on an unverified domain, and the rest there', async function () {
      for (const body of [
        { metrics: ['events'], dimensions: ['payload:plan'] },
        { metrics: ['events'], filters: [{ or: [{ dimension: 'payload:plan', op: 'is', values: ['team'] }] }] },
      ]) {
        const res = await api.post('/v1/stats/query', { ...unverified, ...body });
        expect(res.status, res.text).to.equal(403);
        expect(res.body.detail).to.contain('payload.plan').and.to.contain('not verified');
      }
      const fine = await api.post('/v1/stats/query', { ...unverified, metrics: ['events'], dimensions: ['page'] });
      expect(fine.status, fine.text).to.equal(200);
    });

    const invalid: Array<[string, Record<string, unknown>, Array<string | number>]> = [
      ['an unknown metric', { metrics: ['nope'] }, ['body', 'metrics', 0]],
      ['no metric', { metrics: [] }, ['body', 'metrics']],
      ['conversions without a goal', { metrics: ['events', 'conversions'] }, ['body', 'metrics', 1]],
      [
        'a range that ends first',
        { metrics: ['events'], date_range: { start: 10, end: 5 } },
        ['body', 'date_range', 'end'],
      ],
      [
        'a range over 400 days',
        { metrics: ['events'], date_range: { start: 0, end: 401 * 86_400_000 } },
        ['body', 'date_range', 'end'],
      ],
      [
        'hours over a long range',
        { metrics: ['events'], dimensions: ['time:hour'], date_range: '12mo' },
        ['body', 'dimensions', 0],
      ],
      [
        'a comparison before 1970',
        { metrics: ['events'], date_range: { start: 0, end: 1000 }, compare: 'year_over_year' },
        ['body', 'compare'],
      ],
      [
        'ordering by what was not asked',
        { metrics: ['events'], order_by: [['visitors', 'desc']] },
        ['body', 'order_by', 0, 0],
      ],
      ['two time dimensions', { metrics: ['events'], dimensions: ['time', 'time:day'] }, ['body', 'dimensions', 1]],
      ['an unknown dimension', { metrics: ['events'], dimensions: ['colour'] }, ['body', 'dimensions', 0]],
      [
        'a look-ahead pattern',
        { metrics: ['events'], filters: [{ dimension: 'page', op: 'matches', values: ['(?=x)'] }] },
        ['body', 'filters', 0],
      ],
      [
        'a pattern the engine refuses (RE2 has no Script= classes)',
        { metrics: ['events'], filters: [{ dimension: 'page', op: 'matches', values: ['\\p{Script=Greek}'] }] },
        ['body', 'filters'],
      ],
      [
        'a repetition over 1000',
        { metrics: ['events'], filters: [{ dimension: 'page', op: 'matches', values: ['a{1001}'] }] },
        ['body', 'filters', 0],
      ],
      ['a limit of 0', { metrics: ['events'], limit: 0 }, ['body', 'limit']],
    ];
    for (const [label, body, loc] of invalid)
      it(`answers 422 with loc to ${label}`, async function () {
        const res = await query(body);
        expect(res.status, res.text).to.equal(422);
        const locs = (res.body.detail as Array<{ loc: unknown[] }>).map((d) => d.loc);
        expect(
          locs.some((l) => loc.every((part, i) => l[i] === part)),
          JSON.stringify(locs),
        ).to.equal(true);
      });
  });
}
