// Issue 17, Retention, end to end in the embedded mode: PATCH /v1/projects sets retention days
// and the IP policy, GET /v1/projects shows them, its 401, 404 and 422s; and an event ingested
// after the change is stored with the IP as the new policy says, raw and enriched.
import { expect } from 'chai';
import { requireEngine } from '@spoor/testkit';
import { ApiClient, signUp } from '../support/api-client.js';
import { postAsBrowser, startSpoor, waitFor, type Harness } from '../support/spoor-harness.js';

describe('Project settings: retention days and IP policy (embedded)', function () {
  this.timeout(120_000);
  let spoor: Harness;
  let api: ApiClient;
  let other: ApiClient;
  const scope = { origin: 'http://localhost:4810', project: 'kept/web' };
  const patch = (client: ApiClient, body: unknown, query: Record<string, string> = scope) =>
    client.call('PATCH', '/v1/projects', query, body);
  const listed = async () =>
    (await api.get('/v1/projects')).body.projects.find((p: { project: string }) => p.project === scope.project);

  before(async function () {
    const started = await startSpoor('embedded', { SPOOR_IP_MODE: 'full' });
    requireEngine(this, started ? 'ok' : null, 'the embedded mode');
    spoor = started!;
    api = await signUp(spoor.url);
    other = await signUp(spoor.url);
    expect((await api.post('/v1/users/projects', scope)).status).to.equal(200);
  });

  after(async () => {
    await spoor?.stop();
  });

  it('lists a new project with the defaults: kept forever, SPOOR_IP_MODE', async () => {
    expect(await listed()).to.include({ retention_days: null, ip_policy: 'full' });
  });

  it('changes either field alone and answers the updated project, which GET /v1/projects shows', async () => {
    const days = await patch(api, { retention_days: 30 });
    expect(days.status, days.text).to.equal(200);
    expect(days.body).to.include({
      origin: scope.origin,
      project: scope.project,
      retention_days: 30,
      ip_policy: 'full',
    });
    const policy = await patch(api, { ip_policy: 'truncate' });
    expect(policy.body).to.include({ retention_days: 30, ip_policy: 'truncate' });
    expect(await listed()).to.include({ retention_days: 30, ip_policy: 'truncate' });
    const both = await patch(api, { retention_days: null, ip_policy: 'hash' });
    expect(both.body).to.include({ retention_days: null, ip_policy: 'hash' });
    expect(await listed()).to.include({ retention_days: null, ip_policy: 'hash' });
  });

  it('answers 422 for bad values, an empty change and an unknown field', async () => {
    for (const body of [
      {},
      { retention_days: 0 },
      { retention_days: 3651 },
      { retention_days: 1.5 },
      { retention_days: '30' },
      { ip_policy: 'scramble' },
      { ip_policy: null },
      { retention: 30 },
    ]) {
      const res = await patch(api, body);
      expect(res.status, JSON.stringify(body)).to.equal(422);
      expect(res.body.detail[0].loc[0]).to.equal('body');
    }
    expect((await patch(api, { retention_days: 7 }, { origin: scope.origin })).status, 'no project').to.equal(422);
    expect(await listed(), 'nothing changed').to.include({ retention_days: null, ip_policy: 'hash' });
  });

  it("answers 401 without a token and 404 for another account's project or none", async () => {
    const anonymous = await patch(api.withToken(null), { retention_days: 7 });
    expect(anonymous.status).to.equal(401);
    const foreign = await patch(other, { retention_days: 7 });
    expect(foreign.status).to.equal(404);
    expect(foreign.body).to.deep.equal({ detail: 'Project not found' });
    expect((await patch(other, { retention_days: 0 })).status, 'the project is looked up before the body').to.equal(
      404,
    );
    expect((await patch(api, { retention_days: 7 }, { ...scope, project: 'none/web' })).status).to.equal(404);
    expect(await listed()).to.include({ retention_days: null, ip_policy: 'hash' });
  });

  for (const [policy, stored] of [
    ['hash', /^[0-9a-f]{32}$/],
    ['truncate', /^127\.0\.0\.0$/],
  ] as const) {
    it(`stores an event ingested after ip_policy ${policy} as the policy says, raw and enriched`, async () => {
      const project = `ip-${policy}/web`;
      const to = { origin: scope.origin, project };
      expect((await api.post('/v1/users/projects', to)).status).to.equal(200);
      expect((await patch(api, { ip_policy: policy }, to)).status).to.equal(200);
      const res = await postAsBrowser(spoor.url, to.origin, [
        { project, action: 'click', timestamp: Date.now(), session_id: 's-1', event_id: 'e-1', payload: {} },
      ]);
      expect(res.status).to.equal(200);
      const enriched = await waitFor(
        () => api.get('/v1/events/enriched', to),
        (r) => r.body?.events?.length === 1,
        30_000,
        'the enriched event',
      );
      const raw = await api.get('/v1/events', to);
      expect(enriched.body.events[0].ip).to.match(stored);
      expect(raw.body.events[0].ip).to.equal(enriched.body.events[0].ip);
    });
  }
});
