// Issue 18 through the HTTP API: events sent as a browser would, then POST /v1/funnels/query,
// saved funnels, GET /v1/retention, and their 401, 404 and 422 answers. Both engines' counting
// is checked by the store's contract (libs/store/test/store-funnels.contract.test.ts).
import { expect } from 'chai';
import { requireEngine } from '@spoor/testkit';
import { ApiClient, signUp } from '../support/api-client.js';
import { postAsBrowser, startSpoor, waitFor, type Harness } from '../support/spoor-harness.js';

describe('Funnels and retention over HTTP: embedded', function () {
  this.timeout(120_000);
  let spoor: Harness;
  let api: ApiClient;
  let other: ApiClient;
  const origin = 'http://localhost:4180';
  const project = 'funnels/web';
  const scope = { origin, project };
  const t0 = Date.now() - 30 * 60_000;
  const window = { window_start: t0 - 60_000, window_end: t0 + 3_600_000 };
  const buyByRule = {
    name: 'Buy clicked',
    logic: { and: [{ '==': [{ var: 'action' }, 'click'] }, { in: ['Buy', { var: 'payload.text' }] }] },
  };
  const steps = [{ action: 'pageview' }, buyByRule, { action: 'signup', where: { plan: 'team' } }];

  async function send(sessionId: string, events: Array<[string, Record<string, unknown>?]>) {
    const body = events.map(([action, payload], i) => ({
      project,
      action,
      timestamp: t0 + i * 1000,
      session_id: sessionId,
      url: `${origin}/p${i}`,
      payload: payload ?? {},
    }));
    expect((await postAsBrowser(spoor.url, origin, body)).status).to.equal(200);
  }

  before(async function () {
    const started = await startSpoor('embedded');
    requireEngine(this, started ? 'ok' : null, 'the embedded mode');
    spoor = started!;
    api = await signUp(spoor.url);
    other = await signUp(spoor.url);
    expect((await api.post('/v1/users/projects', scope)).status).to.equal(200);
    expect((await other.post('/v1/users/projects', { origin: 'http://localhost:4181', project })).status).to.equal(200);
    await send('f-1', [['pageview'], ['click', { text: 'Buy now' }], ['signup', { plan: 'team' }]]);
    await send('f-2', [['pageview'], ['click', { text: 'Read more' }], ['signup', { plan: 'team' }]]);
    await send('f-3', [['pageview']]);
    await waitFor(
      () => api.get('/v1/sessions', { ...scope, limit: 10 }),
      (r) => r.body?.sessions?.length === 3,
      30_000,
      'three sessions',
    );
  });

  after(async function () {
    await spoor?.stop();
  });

  it('answers a funnel with a rule step: entered, converted, conversions, median time to the next step', async function () {
    const res = await api.post('/v1/funnels/query', { ...scope, ...window, steps });
    expect(res.status, res.text).to.equal(200);
    expect(res.body).to.include({
      unit: 'session',
      order: 'strict',
      conversion_window_ms: 86_400_000,
      evaluated_in: 'typescript',
      breakdown: null,
    });
    expect(res.body.step_evaluation).to.deep.equal(['sql', 'typescript', 'sql']);
    expect(res.body.steps).to.deep.equal([
      {
        name: 'pageview',
        entered: 3,
        converted: 1,
        conversion_from_previous: 1,
        conversion_from_first: 1,
        median_ms_to_next: 1000,
      },
      {
        name: 'Buy clicked',
        entered: 1,
        converted: 1,
        conversion_from_previous: 1 / 3,
        conversion_from_first: 1 / 3,
        median_ms_to_next: 1000,
      },
      {
        name: 'signup',
        entered: 1,
        converted: null,
        conversion_from_previous: 1,
        conversion_from_first: 1 / 3,
        median_ms_to_next: null,
      },
    ]);
    const compiled = await api.post('/v1/funnels/query', {
      ...scope,
      ...window,
      steps: [{ action: 'pageview' }, { action: 'click', where: { text: 'Buy now' } }, steps[2]],
      breakdown: 'browser',
      order: 'any',
    });
    expect(compiled.status, compiled.text).to.equal(200);
    expect(compiled.body.evaluated_in).to.equal('sql');
    expect(compiled.body.steps.map((s: { entered: number }) => s.entered)).to.deep.equal([3, 1, 1]);
    expect(compiled.body.breakdown).to.deep.include({ property: 'browser' });
    expect(compiled.body.breakdown.groups.map((g: { value: string }) => g.value)).to.deep.equal(['Chrome']);
  });

  it('saves, lists, runs and deletes a funnel; another account sees none of it', async function () {
    const saved = await api.post('/v1/funnels', { ...scope, name: 'Checkout', steps });
    expect(saved.status, saved.text).to.equal(200);
    const id = saved.body.funnel_id as string;
    expect(saved.body).to.include({
      name: 'Checkout',
      unit: 'session',
      order: 'strict',
      breakdown: null,
      origin,
      project,
    });
    expect(
      (await api.get('/v1/funnels', scope)).body.funnels.map((f: { funnel_id: string }) => f.funnel_id),
    ).to.deep.equal([id]);
    const result = await api.get(`/v1/funnels/${id}/result`, { ...scope, ...window });
    expect(result.status, result.text).to.equal(200);
    expect(result.body.steps.map((s: { entered: number }) => s.entered)).to.deep.equal([3, 1, 1]);
    expect((await other.get(`/v1/funnels/${id}`, scope)).status).to.equal(404);
    expect((await other.delete(`/v1/funnels/${id}`, scope)).status).to.equal(404);
    expect((await api.delete(`/v1/funnels/${id}`, scope)).status).to.equal(200);
    expect((await api.get(`/v1/funnels/${id}`, scope)).status).to.equal(404);
  });

  it('answers retention cohorts by day', async function () {
    const end = t0 + 10_000;
    const res = await api.get('/v1/retention', { ...scope, window_start: t0, window_end: end, period: 'day' });
    expect(res.status, res.text).to.equal(200);
    const day = Math.floor(t0 / 86_400_000) * 86_400_000;
    expect(res.body).to.include({
      period: 'day',
      period_ms: 86_400_000,
      window_start: day,
      window_end: end,
      action: null,
    });
    // The three sessions came from one browser: one visitor, first seen on t0's day (a window
    // that crosses midnight also holds the next day's empty cohort).
    const next = end > day + 86_400_000 ? [{ start: day + 86_400_000, size: 0, returning: [0], shares: [0] }] : [];
    expect(res.body.cohorts).to.deep.equal([
      { start: day, size: 1, returning: next.length ? [1, 0] : [1], shares: next.length ? [1, 0] : [1] },
      ...next,
    ]);
  });

  it('refuses bad funnels and retention queries with 422 and where the fault is', async function () {
    const cases: Array<[Record<string, unknown>, Array<string | number>]> = [
      [{ steps: [{ action: 'pageview' }] }, ['body', 'steps']],
      [{ steps: Array.from({ length: 11 }, () => ({ action: 'pageview' })) }, ['body', 'steps']],
      [{ steps: [{ action: 'pageview', logic: true }, { action: 'x' }] }, ['body', 'steps', 0]],
      [{ steps: [{ action: 'pageview' }, { logic: { nope: [1] } }] }, ['body', 'steps', 1, 'logic']],
      [{ steps: [{ logic: { '==': [1, 1] }, where: { a: 1 } }, { action: 'x' }] }, ['body', 'steps', 0, 'where']],
      [{ steps, conversion_window_ms: 0 }, ['body', 'conversion_window_ms']],
      [{ steps, breakdown: 'os' }, ['body', 'breakdown']],
      [{ steps, window_start: t0, window_end: t0 }, ['body', 'window_end']],
      [{ steps, window_start: 0, window_end: 200 * 86_400_000 }, ['body', 'window_end']],
    ];
    for (const [body, loc] of cases) {
      const res = await api.post('/v1/funnels/query', { ...scope, ...body });
      expect(res.status, JSON.stringify(body)).to.equal(422);
      expect(
        res.body.detail.map((d: { loc: unknown[] }) => d.loc),
        JSON.stringify(body),
      ).to.deep.include(loc);
    }
    // The 92-day bound holds whichever end is left out (issue 43): a missing end is now.
    for (const body of [
      { steps, window_start: 0 },
      { steps, window_start: Date.now() - 93 * 86_400_000 },
    ]) {
      const res = await api.post('/v1/funnels/query', { ...scope, ...body });
      expect(res.status, JSON.stringify(body)).to.equal(422);
      expect(res.body.detail.map((d: { loc: unknown[] }) => d.loc)).to.deep.equal([['body', 'window_start']]);
    }
    const saved = await api.post('/v1/funnels', { ...scope, name: 'Unbounded', steps });
    const savedLong = await api.get(`/v1/funnels/${saved.body.funnel_id}/result`, { ...scope, window_start: 0 });
    expect(savedLong.status, savedLong.text).to.equal(422);
    expect(savedLong.body.detail.map((d: { loc: unknown[] }) => d.loc)).to.deep.equal([['query', 'window_start']]);
    await api.delete(`/v1/funnels/${saved.body.funnel_id}`, scope);
    // An early window_end alone: the default week is cut at the epoch, never a negative start.
    const early = await api.post('/v1/funnels/query', { ...scope, steps, window_end: 1000 });
    expect(early.status, early.text).to.equal(200);
    expect(early.body).to.include({ window_start: 0, window_end: 1000 });
    const badPeriod = await api.get('/v1/retention', { ...scope, period: 'month' });
    expect(badPeriod.status).to.equal(422);
    expect(badPeriod.body.detail[0].loc).to.deep.equal(['query', 'period']);
    const tooLong = await api.get('/v1/retention', { ...scope, window_start: 0, window_end: 365 * 86_400_000 });
    expect(tooLong.status).to.equal(422);
    expect(tooLong.body.detail[0].loc).to.deep.equal(['query', 'window_start']);
  });

  it("answers 401 without credentials and 404 for another account's project", async function () {
    const anonymous = api.withToken(null);
    expect((await anonymous.post('/v1/funnels/query', { ...scope, steps })).status).to.equal(401);
    expect((await anonymous.get('/v1/retention', scope)).status).to.equal(401);
    expect((await anonymous.get('/v1/funnels', scope)).status).to.equal(401);
    const theirs = await other.post('/v1/funnels/query', { ...scope, ...window, steps });
    expect(theirs.status).to.equal(404);
    expect(theirs.body).to.deep.equal({ detail: 'Project not found' });
    expect((await other.get('/v1/retention', scope)).status).to.equal(404);
    expect((await other.get('/v1/funnels', scope)).status).to.equal(404);
    expect((await other.post('/v1/funnels', { ...scope, name: 'x', steps })).status).to.equal(404);
  });
});
