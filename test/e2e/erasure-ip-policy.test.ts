// Issue 43, target 3, in both modes: an erasure job's record keeps only what the project's IP
// policy lets events keep. In a `hash` and a `truncate` project, POST /v1/erasures by IP erases the
// visitor, and afterwards neither the stored job record nor GET /v1/jobs/{id} holds the address:
// the request names it as the project stores it (`ip_stored_as` the policy). A `full` project's
// record keeps the address, as its events do.
import { expect } from 'chai';
import { requireEngine } from '@spoor/testkit';
import { signUp, type ApiClient } from '../support/api-client.js';
import { MODES } from '../support/engine-env.js';
import { post, startSpoor, waitFor, type Harness } from '../support/spoor-harness.js';

const IP = '203.0.113.77';
const UA = 'Mozilla/5.0 (X11; Linux x86_64) Firefox/133.0 erased';

for (const mode of MODES) {
  describe(`Erasure job records under the IP policy: ${mode}`, function () {
    this.timeout(240_000);
    let spoor: Harness;
    let api: ApiClient;
    const projects = {
      hash: { origin: 'http://localhost:4730', project: 'erase/hash' },
      truncate: { origin: 'http://localhost:4731', project: 'erase/truncate' },
      full: { origin: 'http://localhost:4732', project: 'erase/full' },
    } as const;

    before(async function () {
      const started = await startSpoor(mode, { SPOOR_TRUST_PROXY: 'true' });
      requireEngine(this, started ? 'ok' : null, `engines for ${mode} mode`);
      spoor = started!;
      api = await signUp(spoor.url);
      const t0 = Date.now() - 60_000;
      for (const [policy, scope] of Object.entries(projects)) {
        expect((await api.post('/v1/users/projects', scope)).status).to.equal(200);
        // Before any event: the enricher reads the policy when the project's first event comes.
        expect((await api.call('PATCH', '/v1/projects', scope, { ip_policy: policy })).status).to.equal(200);
        const events = ['pageview', 'click'].map((action, i) => ({
          project: scope.project,
          action,
          timestamp: t0 + i * 1000,
          session_id: `s-${policy}`,
          event_id: `${policy}-${i}`,
        }));
        const res = await post(
          `${spoor.url}/v1/event/batch`,
          { events },
          { origin: scope.origin, 'user-agent': UA, 'x-forwarded-for': IP },
        );
        expect(res.status, JSON.stringify(res.body)).to.equal(200);
      }
      for (const scope of Object.values(projects))
        await waitFor(
          () => api.get('/v1/events/enriched', { ...scope, limit: 10 }),
          (r) => r.body?.events?.length === 2,
          30_000,
          `the events of ${scope.project}`,
        );
    });

    after(async () => {
      await spoor?.stop();
    });

    for (const policy of ['hash', 'truncate', 'full'] as const) {
      it(`erases by IP in a ${policy} project; the job record keeps the IP as ${policy} stores it`, async () => {
        const scope = projects[policy];
        const storedIp = (await api.get('/v1/events/enriched', { ...scope, limit: 10 })).body.events[0].ip as string;
        if (policy === 'full') expect(storedIp).to.equal(IP);
        else expect(storedIp).to.not.equal(IP);
        const queued = await api.post('/v1/erasures', { ...scope, ip: IP });
        expect(queued.status, queued.text).to.equal(200);
        const done = await waitFor(
          () => api.get(`/v1/jobs/${queued.body.job_id}`),
          (r) => ['succeeded', 'failed'].includes(r.body?.status),
          60_000,
          'the erasure job',
        );
        expect(done.body.status, done.body.error).to.equal('succeeded');
        expect(done.body.result).to.include({ sessions: 1, events: 2 });
        expect((await api.get('/v1/events/enriched', { ...scope, limit: 10 })).body.events).to.deep.equal([]);
        const record = (await spoor.store.jobs.get(queued.body.job_id))!;
        if (policy === 'full') {
          expect(record.request).to.deep.equal({ ip: IP });
          return;
        }
        expect(record.request).to.deep.equal({ ip: storedIp, ip_stored_as: policy });
        expect(JSON.stringify(record)).to.not.contain(IP);
        expect(JSON.stringify(done.body)).to.not.contain(IP);
      });
    }
  });
}
