import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { requireEngine } from '@spoor/testkit';
import { MODES } from '../support/engine-env.js';
import { ApiClient, signUp } from '../support/api-client.js';
import { postAsBrowser, startSpoor, waitFor, type Harness } from '../support/spoor-harness.js';

for (const mode of MODES) {
  describe(`Gateway: a new user's whole path: ${mode}`, function () {
    this.timeout(120_000);
    let spoor: Harness;
    let api: ApiClient;
    const origin = 'http://localhost:3000';
    const project = 'mysite/web';
    const scope = { origin, project };
    const sid = `s-${randomUUID()}`;
    const t0 = Date.UTC(2026, 10, 21, 9, 0, 0);

    before(async function () {
      const started = await startSpoor(mode);
      requireEngine(this, started ? 'ok' : null, `engines for ${mode} mode`);
      spoor = started!;
      api = await signUp(spoor.url);
    });
    after(async () => spoor?.stop());

    it('signs up, logs in and reads the account', async () => {
      const email = `flow-${randomUUID().slice(0, 8)}@example.com`;
      const signup = await new ApiClient(spoor.url).post('/v1/auth/signup', { email, password: 'hunter2hunter2' });
      expect(signup.status).to.equal(200);
      expect(signup.body.expires_at).to.be.greaterThan(Date.now());
      expect(
        (await new ApiClient(spoor.url).post('/v1/auth/signup', { email, password: 'hunter2hunter2' })).status,
      ).to.equal(409);
      expect(
        (await new ApiClient(spoor.url).post('/v1/auth/login', { email, password: 'wrong-password' })).status,
      ).to.equal(401);
      const login = await new ApiClient(spoor.url).post('/v1/auth/login', {
        email: email.toUpperCase(),
        password: 'hunter2hunter2',
      });
      expect(login.status).to.equal(200);
      const account = await new ApiClient(spoor.url, login.body.id_token).get('/v1/users/account');
      expect(account.body).to.include({ email });
      expect(account.body.account_id).to.be.a('string');
    });

    it('registers a localhost project, which counts as verified', async () => {
      const res = await api.post('/v1/users/projects', scope);
      expect(res.status, res.text).to.equal(200);
      expect(res.body).to.include({ origin, project, verified: true });
      expect(res.body.verification).to.deep.include({ type: 'TXT', name: '_spoor.localhost' });
      expect(res.body.verification.value).to.match(/^spoor-verify=/);
      for (const path of ['/v1/projects/', '/v1/users/projects']) {
        const list = await api.get(path);
        expect(list.body.projects).to.deep.include.members([
          {
            origin,
            project,
            verified: true,
            created_at: res.body.created_at,
            retention_days: null,
            ip_policy: 'full',
            role: 'owner',
          },
        ]);
      }
    });

    it('takes events and reads every endpoint back, with a token and with an API key', async () => {
      const events = [
        {
          project,
          action: 'pageview',
          timestamp: t0,
          session_id: sid,
          url: 'http://localhost:3000/?utm_source=x',
          payload: { n: 1 },
        },
        {
          project,
          action: 'click',
          timestamp: t0 + 1000,
          session_id: sid,
          url: 'http://localhost:3000/',
          payload: { n: 2 },
        },
      ];
      const ingest = await postAsBrowser(spoor.url, origin, events);
      expect(ingest.status).to.equal(200);
      await waitFor(
        () => api.get(`/v1/sessions/${sid}`, scope),
        (r) => r.status === 200 && r.body.event_count === 2,
        30_000,
        'the session',
      );

      const key = await api.post('/v1/users/apikey', { api_key_name: 'ci' });
      expect(key.status).to.equal(200);
      const keyed = api.withToken(key.body.api_key);
      for (const client of [api, keyed]) {
        const sessions = await client.get('/v1/sessions/', scope);
        expect(sessions.body.sessions[0]).to.deep.equal({
          session_id: sid,
          first_event_at: t0,
          last_event_at: t0 + 1000,
          event_count: 2,
        });
        const summary = await client.get(`/v1/sessions/${sid}`, scope);
        expect(summary.body).to.include({ session_id: sid, event_count: 2, duration_ms: 1000, page_count: 1 });
        expect(summary.body).to.not.have.property('seen');
        const sessionEvents = await client.get(`/v1/sessions/${sid}/events`, scope);
        expect(sessionEvents.body.events.map((e: any) => e.action)).to.deep.equal(['pageview', 'click']);
        expect(sessionEvents.body.events[0].browser.name).to.equal('Chrome');
        expect((await client.get(`/v1/sessions/${sid}/attributes`, scope)).body).to.deep.equal({ attributes: {} });
        expect((await client.get(`/v1/sessions/${sid}/tags`, scope)).body).to.deep.equal({ tags: [] });
        for (const path of ['/v1/events', '/v1/event']) {
          const raw = await client.get(path, scope);
          expect(raw.status).to.equal(200);
          expect(raw.body.events.map((e: any) => e.payload)).to.deep.equal([{ n: 1 }, { n: 2 }]);
          expect(raw.body.events[0]).to.include.keys('event_id', 'action', 'timestamp', 'payload');
        }
        for (const path of ['/v1/events/enriched', '/v1/event/enriched']) {
          const enriched = await client.get(path, scope);
          expect(enriched.body.events[0].query).to.deep.equal({ utm_source: 'x' });
        }
        const actions = await client.get('/v1/events/actions', scope);
        expect(actions.body.actions).to.deep.include.members([
          { action: 'click', last_seen: t0 + 1000 },
          { action: 'pageview', last_seen: t0 },
        ]);
        expect((await client.get('/v1/tags', scope)).body).to.deep.equal({ tags: [] });
        expect((await client.get('/v1/tags/vip', scope)).body).to.deep.equal({ tag: 'vip', sessions: [] });
        expect((await client.get('/v1/projects/overview', scope)).body).to.deep.equal({ overviews: [] });
      }
    });

    it('lists API keys without secrets and refuses a deleted key at once', async () => {
      const created = await api.post('/v1/users/apikey', { api_key_name: 'temp' });
      expect((await api.post('/v1/users/apikey', { api_key_name: 'temp' })).status).to.equal(409);
      const list = await api.get('/v1/users/apikey');
      expect(list.body.api_keys.map((k: any) => k.api_key_name)).to.include('temp');
      expect(list.text).to.not.contain(created.body.api_key);
      const keyed = api.withToken(created.body.api_key);
      expect((await keyed.get('/v1/users/account')).status).to.equal(200);
      expect((await api.delete('/v1/users/apikey/temp')).status).to.equal(200);
      expect((await keyed.get('/v1/users/account')).status).to.equal(401);
      expect((await api.delete('/v1/users/apikey/temp')).status).to.equal(404);
    });

    it('gives another account 404 for this project and its sessions, and 409 for registering it', async () => {
      const other = await signUp(spoor.url);
      for (const path of [
        '/v1/sessions',
        `/v1/sessions/${sid}`,
        `/v1/sessions/${sid}/events`,
        `/v1/sessions/${sid}/attributes`,
        `/v1/sessions/${sid}/tags`,
        '/v1/events',
        '/v1/events/enriched',
        '/v1/events/actions',
        '/v1/tags',
        '/v1/tags/x',
        '/v1/projects/overview',
      ]) {
        const res = await other.get(path, scope);
        expect(res.status, path).to.equal(404);
        expect(res.body).to.deep.equal({ detail: 'Project not found' });
      }
      expect((await other.post('/v1/users/projects', scope)).status).to.equal(409);
      expect((await other.post('/v1/users/projects/verify', scope)).status).to.equal(404);
      expect((await other.get('/v1/projects')).body).to.deep.equal({ projects: [] });
      expect((await api.get(`/v1/sessions/nope-${randomUUID()}`, scope)).status).to.equal(404);
    });
  });
}
