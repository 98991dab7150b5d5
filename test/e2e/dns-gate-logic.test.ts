// Issue 42, item 1: the DNS gate through logic. An unverified origin's raw event fields (payload,
// IP, user agent, URL and query, referrer) are readable once its domain is verified; attribute
// rules and funnels evaluated over its stored events must not read them either. Probe of the
// finding: an attribute rule whose value is {"var":"payload"} copied the payload into
// GET /v1/sessions/{id}/attributes while /events answered 403, and a funnel `where` on the
// payload answered 1 for the right guess and 0 for a wrong one.
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { requireEngine } from '@spoor/testkit';
import { ApiClient, signUp } from '../support/api-client.js';
import { postAsBrowser, startSpoor, waitFor, type Harness } from '../support/spoor-harness.js';

describe('The DNS gate through attribute rules and funnels (issue 42)', function () {
  this.timeout(120_000);
  const UNVERIFIED = { origin: 'https://unverified-logic.example', project: 'gate/logic' };
  const VERIFIED = { origin: 'http://localhost:4190', project: 'gate/logic' };
  const marker = `marker-${randomUUID()}`;
  const t0 = Date.now() - 10 * 60_000;
  const window = { window_start: t0 - 60_000, window_end: Date.now() + 60_000 };
  let spoor: Harness;
  let api: ApiClient;

  async function send(scope: typeof VERIFIED, sessionId: string, n: number) {
    const body = Array.from({ length: n }, (_, i) => ({
      project: scope.project,
      action: i === 0 ? 'pageview' : 'signup',
      timestamp: t0 + i * 1000 + n,
      session_id: sessionId,
      url: `${scope.origin}/p?token=${marker}`,
      payload: { secret: marker },
    }));
    expect((await postAsBrowser(spoor.url, scope.origin, body)).status).to.equal(200);
  }

  const attributesOf = (scope: typeof VERIFIED, sessionId: string) =>
    api.get(`/v1/sessions/${sessionId}/attributes`, scope);

  before(async function () {
    const started = await startSpoor('embedded');
    requireEngine(this, started ? 'ok' : null, 'the embedded mode');
    spoor = started!;
    api = await signUp(spoor.url);
    for (const scope of [UNVERIFIED, VERIFIED])
      expect((await api.post('/v1/users/projects', scope)).status).to.equal(200);
  });
  after(async () => spoor?.stop());

  const rawRules: Array<[string, Record<string, unknown>]> = [
    ['a value copying the payload', { value: { var: 'payload' } }],
    ['a value copying the IP', { value: { var: 'ip' } }],
    ['a value copying the user agent', { value: { var: 'user_agent' } }],
    ['a value copying the URL', { value: { var: 'url' } }],
    ['a value copying a query parameter', { value: { var: 'query.token' } }],
    ['a condition guessing a payload field', { logic: { '==': [{ var: 'payload.secret' }, 'guess'] }, value: 'yes' }],
  ];
  for (const [label, over] of rawRules)
    it(`refuses an attribute rule with ${label} on an unverified domain (403 naming the field), accepts it on a verified one`, async () => {
      const rule = { rule_id: 'leak', kind: 'attribute', logic: true, attribute: 'leak', ...over };
      const refused = await api.post('/v1/rules', { ...UNVERIFIED, ...rule });
      expect(refused.status, refused.text).to.equal(403);
      expect(refused.body.detail).to.contain('not verified');
      expect(refused.body.detail).to.match(/payload|ip|user_agent|url|query\.token/);
      expect((await api.get('/v1/rules/leak', UNVERIFIED)).status).to.equal(404);
      expect((await api.post('/v1/rules', { ...VERIFIED, ...rule })).status).to.equal(200);
    });

  it('runs attribute rules that read summary fields on an unverified domain, and its attributes carry no raw field', async () => {
    const rule = {
      rule_id: 'browser',
      kind: 'attribute',
      logic: true,
      attribute: 'browser',
      value: { var: 'browser.name' },
    };
    expect((await api.post('/v1/rules', { ...UNVERIFIED, ...rule })).status).to.equal(200);
    await send(UNVERIFIED, 'u-1', 3);
    const res = await waitFor(
      () => attributesOf(UNVERIFIED, 'u-1'),
      (r) => r.status === 200 && r.body.attributes.browser !== undefined,
      30_000,
      "the unverified session's attributes",
    );
    expect(res.body.attributes).to.deep.equal({ browser: 'Chrome' });
    expect(res.text).not.to.contain(marker);
    const summary = await api.get('/v1/sessions/u-1', UNVERIFIED);
    expect(summary.body.attributes).to.deep.equal({ browser: 'Chrome' });
  });

  it('a verified domain keeps attribute rules on raw fields: the value reaches the session', async () => {
    const copy = {
      rule_id: 'copy',
      kind: 'attribute',
      logic: true,
      attribute: 'copy',
      value: { var: 'payload.secret' },
    };
    expect((await api.post('/v1/rules', { ...VERIFIED, ...copy })).status).to.equal(200);
    await send(VERIFIED, 'v-1', 3);
    const res = await waitFor(
      () => attributesOf(VERIFIED, 'v-1'),
      (r) => r.status === 200 && r.body.attributes.copy !== undefined,
      30_000,
      "the verified session's attributes",
    );
    expect(res.body.attributes.copy).to.equal(marker);
  });

  const rawSteps: Array<[string, unknown[]]> = [
    ['a where on a payload field', [{ action: 'pageview' }, { action: 'signup', where: { secret: marker } }]],
    ['logic on the IP', [{ action: 'pageview' }, { logic: { '==': [{ var: 'ip' }, '127.0.0.1'] } }]],
    ['logic on the URL', [{ logic: { in: [marker, { var: 'url' }] } }, { action: 'signup' }]],
  ];
  for (const [label, steps] of rawSteps) {
    it(`answers 403 to a funnel with ${label} on an unverified domain, and refuses to save it`, async () => {
      const refused = await api.post('/v1/funnels/query', { ...UNVERIFIED, ...window, steps });
      expect(refused.status, refused.text).to.equal(403);
      expect(refused.body.detail).to.contain('not verified');
      const saved = await api.post('/v1/funnels', { ...UNVERIFIED, name: 'guess', steps });
      expect(saved.status, saved.text).to.equal(403);
    });
  }

  it('answers funnels on summary fields for an unverified domain, and raw ones for a verified one', async () => {
    await waitFor(
      () => api.get('/v1/sessions', { ...VERIFIED, limit: 10 }),
      (r) => r.body?.sessions?.length >= 1,
      30_000,
      'the verified session',
    );
    const summarySteps = [{ action: 'pageview' }, { logic: { '==': [{ var: 'browser.name' }, 'Chrome'] } }];
    const allowed = await api.post('/v1/funnels/query', { ...UNVERIFIED, ...window, steps: summarySteps });
    expect(allowed.status, allowed.text).to.equal(200);
    expect(allowed.body.steps[0].entered).to.equal(1);
    const raw = [{ action: 'pageview' }, { action: 'signup', where: { secret: marker } }];
    const verified = await api.post('/v1/funnels/query', { ...VERIFIED, ...window, steps: raw });
    expect(verified.status, verified.text).to.equal(200);
    expect(verified.body.steps.map((s: { entered: number }) => s.entered)).to.deep.equal([1, 1]);
  });

  it("another account's project still answers 404, not 403", async () => {
    const other = await signUp(spoor.url);
    const res = await other.post('/v1/funnels/query', {
      ...UNVERIFIED,
      ...window,
      steps: [{ action: 'pageview' }, { action: 'signup', where: { secret: 'x' } }],
    });
    expect(res.status).to.equal(404);
  });
});
