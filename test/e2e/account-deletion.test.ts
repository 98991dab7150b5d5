// Issue 17, account deletion end to end in both modes: DELETE /v1/users/account deletes the
// account, its API keys and every project it holds with everything in them; afterwards neither
// its tokens, its keys nor its password work, the store and the KV hold nothing of it, its email
// can sign up again (empty), and another account is untouched. Plus its 401, 403 and 422s.
import { expect } from 'chai';
import { projectKvPrefixes } from '@spoor/schemas';
import { requireEngine } from '@spoor/testkit';
import { ApiClient, signUp } from '../support/api-client.js';
import { MODES } from '../support/engine-env.js';
import { postAsBrowser, startSpoor, waitFor, type Harness } from '../support/spoor-harness.js';

const PASSWORD = 'correct horse battery';

for (const mode of MODES) {
  describe(`Data ownership: account deletion: ${mode}`, function () {
    this.timeout(240_000);
    let spoor: Harness;
    let doomed: ApiClient;
    let other: ApiClient;
    const email = `doomed-${Date.now()}@example.com`;
    const scopes = [
      { origin: 'http://localhost:4710', project: 'doomed/web' },
      { origin: 'http://localhost:4711', project: 'doomed/shop' },
    ];
    const otherScope = { origin: 'http://localhost:4712', project: 'kept/web' };

    async function send(to: { origin: string; project: string }, sessionId: string) {
      const t0 = Date.now() - 60_000;
      const events = ['pageview', 'click'].map((action, i) => ({
        project: to.project,
        action,
        timestamp: t0 + i * 1000,
        session_id: sessionId,
        event_id: `${sessionId}-${i}`,
      }));
      const res = await postAsBrowser(spoor.url, to.origin, events);
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
    }

    before(async function () {
      const started = await startSpoor(mode);
      requireEngine(this, started ? 'ok' : null, `engines for ${mode} mode`);
      spoor = started!;
      doomed = await signUp(spoor.url, email);
      other = await signUp(spoor.url);
      for (const scope of scopes) {
        expect((await doomed.post('/v1/users/projects', scope)).status).to.equal(200);
        await send(scope, `s-${scope.project.replace('/', '-')}`);
      }
      expect((await other.post('/v1/users/projects', otherScope)).status).to.equal(200);
      await send(otherScope, 's-kept');
      for (const [client, scope] of [
        [doomed, scopes[0]!],
        [doomed, scopes[1]!],
        [other, otherScope],
      ] as const) {
        await waitFor(
          () => client.get('/v1/sessions', { ...scope, limit: 10 }),
          (r) => r.body?.sessions?.length === 1,
          30_000,
          `a session in ${scope.project}`,
        );
      }
    });

    after(async () => {
      await spoor?.stop();
    });

    it("answers 401 without credentials, 403 to an API key, 422 without the account's email", async () => {
      expect((await doomed.withToken(null).delete('/v1/users/account', { confirm: email })).status).to.equal(401);
      const key = await doomed.post('/v1/users/apikey', { api_key_name: 'full-key' });
      expect(key.status).to.equal(200);
      const byKey = await doomed.withToken(key.body.api_key).delete('/v1/users/account', { confirm: email });
      expect(byKey.status).to.equal(403);
      expect(byKey.body.detail).to.match(/ID token/);
      for (const query of [{}, { confirm: 'someone@example.com' }, { confirm: 'x'.repeat(400) }]) {
        const res = await doomed.delete('/v1/users/account', query);
        expect(res.status, JSON.stringify(query)).to.equal(422);
        expect(res.body.detail.map((d: any) => d.loc)).to.deep.include(['query', 'confirm']);
      }
      expect((await doomed.get('/v1/users/account')).body.email).to.equal(email);
    });

    it('deletes the account, its keys and projects; nothing of it works or remains; another account is untouched', async () => {
      const key = (await doomed.post('/v1/users/apikey', { api_key_name: 'ci' })).body.api_key as string;
      const projectIds = await Promise.all(
        scopes.map(async (s) => (await spoor.store.projects.find(s.origin, s.project))!.project_id),
      );
      const accountId = (await doomed.get('/v1/users/account')).body.account_id as string;

      // The confirmation compares like an email: case and surrounding spaces do not matter.
      const queued = await doomed.delete('/v1/users/account', { confirm: ` ${email.toUpperCase()} ` });
      expect(queued.status, queued.text).to.equal(200);
      expect(queued.body.status).to.equal('queued');
      // The job deletes the account last: its token is refused once it has run.
      await waitFor(
        () => doomed.get(`/v1/jobs/${queued.body.job_id}`),
        (r) => r.status === 401,
        60_000,
        'the account deletion',
      );

      expect((await doomed.get('/v1/users/account')).status).to.equal(401);
      expect((await doomed.withToken(key).get('/v1/projects')).status).to.equal(401);
      expect((await new ApiClient(spoor.url).post('/v1/auth/login', { email, password: PASSWORD })).status).to.equal(
        401,
      );
      for (const id of projectIds) {
        expect(await spoor.store.projects.get(id)).to.equal(null);
        expect(await spoor.store.events.countRaw(id)).to.equal(0);
        expect(await spoor.store.events.countEnriched(id)).to.equal(0);
        expect(await spoor.store.sessions.count(id)).to.equal(0);
      }
      expect(await spoor.store.accounts.get(accountId)).to.equal(null);
      expect(await spoor.store.apiKeys.list(accountId)).to.deep.equal([]);
      expect((await spoor.store.jobs.listByAccount(accountId, 10)).map((j) => j.kind)).to.deep.equal([
        'account_deletion',
      ]);
      // A finished job reports its progress whole: both projects of two (issue 43).
      const finished = await waitFor(
        () => spoor.store.jobs.get(queued.body.job_id),
        (j) => j?.status === 'succeeded',
        30_000,
        'the account deletion job to succeed',
      );
      expect(finished!.progress).to.deep.equal({ done: 2, total: 2 });
      // Nothing of the projects in the KV (open sessions, dedup claims…): there was nothing to delete.
      expect(await spoor.process.adapters.kv.deletePrefixes(projectIds.flatMap(projectKvPrefixes))).to.equal(0);

      // Events for its projects are refused once ingest's project cache lapses (10 s; docs/data.md).
      const late = () =>
        postAsBrowser(spoor.url, scopes[0]!.origin, [
          { project: scopes[0]!.project, action: 'late', timestamp: Date.now() },
        ]);
      const refused = await waitFor(late, (r) => r.status !== 200, 20_000, 'ingest refusing the deleted project');
      expect(refused.status).to.equal(404);
      // The other account's data is whole.
      expect((await other.get('/v1/sessions', { ...otherScope, limit: 10 })).body.sessions).to.have.length(1);
      expect((await other.get('/v1/projects')).body.projects).to.have.length(1);

      // The email signs up again, as a new account with nothing in it; the project names are free.
      const again = await signUp(spoor.url, email);
      const fresh = await again.get('/v1/users/account');
      expect(fresh.body.account_id).to.not.equal(accountId);
      expect((await again.get('/v1/projects')).body.projects).to.deep.equal([]);
      expect((await again.post('/v1/users/projects', scopes[0])).status).to.equal(200);
    });
  });
}
