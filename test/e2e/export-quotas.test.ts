// Issue 42, item 5, in both modes: 40 identical exports queued in 2.5 s wrote 402 MB from a 32 MB
// store. An identical request is answered with the export already made (one job, one file) while
// its rows are unchanged; an account over its cap on exports at once or on bytes held in
// unexpired files gets 429 with a message that says which cap and what to do (docs/data.md).
import { expect } from 'chai';
import { requireEngine } from '@spoor/testkit';
import { ApiClient, signUp } from '../support/api-client.js';
import { MODES } from '../support/engine-env.js';
import { postAsBrowser, startSpoor, waitFor, type Harness } from '../support/spoor-harness.js';

const MAX_BYTES = 40_000;

for (const mode of MODES) {
  describe(`Export quotas: ${mode}`, function () {
    this.timeout(240_000);
    const t0 = Date.now() - 30 * 60_000;

    async function send(spoor: Harness, to: { origin: string; project: string }, id: string, n: number, start = t0) {
      const events = Array.from({ length: n }, (_, i) => ({
        project: to.project,
        action: 'pageview',
        timestamp: start + i * 1000,
        session_id: id,
        event_id: `${id}-${i}`,
        url: `${to.origin}/p${i}`,
        payload: { i, filler: 'x'.repeat(300) },
      }));
      for (let at = 0; at < events.length; at += 50) {
        const res = await postAsBrowser(spoor.url, to.origin, events.slice(at, at + 50));
        expect(res.status, JSON.stringify(res.body)).to.equal(200);
      }
    }

    async function finished(client: ApiClient, jobId: string) {
      const res = await waitFor(
        () => client.get(`/v1/jobs/${jobId}`),
        (r) => ['succeeded', 'failed'].includes(r.body?.status),
        60_000,
        `job ${jobId}`,
      );
      expect(res.body.status, res.body.error).to.equal('succeeded');
      return res.body;
    }

    const accountOf = async (client: ApiClient) => (await client.get('/v1/users/account')).body.account_id as string;

    /** The account's export jobs in the store, newest first: one per file written. */
    async function exportJobs(spoor: Harness, client: ApiClient) {
      return (await spoor.store.jobs.listByAccount(await accountOf(client), 1000)).filter((j) => j.kind === 'export');
    }

    describe('with a worker: identical requests and bytes held', () => {
      let spoor: Harness;
      let api: ApiClient;
      let big: ApiClient;
      const scope = { origin: 'http://localhost:4710', project: 'quota/web' };
      const bigScope = { origin: 'http://localhost:4711', project: 'quota/big' };

      before(async function () {
        const started = await startSpoor(mode, { SPOOR_EXPORT_MAX_BYTES: String(MAX_BYTES) });
        requireEngine(this, started ? 'ok' : null, `engines for ${mode} mode`);
        spoor = started!;
        api = await signUp(spoor.url);
        big = await signUp(spoor.url);
        expect((await api.post('/v1/users/projects', scope)).status).to.equal(200);
        expect((await big.post('/v1/users/projects', bigScope)).status).to.equal(200);
        await send(spoor, scope, 's-a', 3);
        await send(spoor, bigScope, 's-big', 200);
        await waitFor(
          () => big.get('/v1/events', { ...bigScope, limit: 1000 }),
          (r) => r.body?.events?.length === 200,
          30_000,
          'the big project',
        );
        await waitFor(
          () => api.get('/v1/events', { ...scope, limit: 10 }),
          (r) => r.body?.events?.length === 3,
          30_000,
          'three events',
        );
      });

      after(async () => {
        await spoor?.stop();
      });

      it('answers an identical request with the same export and file while the rows are unchanged, a new one once they changed', async () => {
        const body = { ...scope, what: 'events', format: 'ndjson', window_start: t0 - 60_000 };
        const first = await api.post('/v1/exports', body);
        expect(first.status, first.text).to.equal(200);
        expect(first.body).to.include({ status: 'queued', reused: false });
        const done = await finished(api, first.body.job_id);
        expect(done.result.rows).to.equal(3);

        // A burst of the same request, all at once: the one export answers every one of them.
        const burst = await Promise.all(Array.from({ length: 8 }, () => api.post('/v1/exports', body)));
        for (const res of burst) {
          expect(res.status, res.text).to.equal(200);
          expect(res.body).to.deep.equal({ job_id: first.body.job_id, status: 'succeeded', reused: true });
        }
        expect((await exportJobs(spoor, api)).map((j) => j.job_id)).to.deep.equal([first.body.job_id]);
        const usage = await spoor.store.exports.usage({
          account_id: await accountOf(api),
          now: Date.now(),
          project_id: '',
          request: {},
        });
        expect(usage.bytes, 'one file held').to.equal(done.result.bytes);

        // Another format, or another window, is another export.
        const csv = await api.post('/v1/exports', { ...body, format: 'csv' });
        expect(csv.body).to.include({ reused: false });
        expect(csv.body.job_id).to.not.equal(first.body.job_id);
        await finished(api, csv.body.job_id);

        // A new event in the window: the written file no longer holds every row, so a new export.
        await send(spoor, scope, 's-late', 1, t0 + 10_000);
        await waitFor(
          () => api.get('/v1/events', { ...scope, limit: 10 }),
          (r) => r.body?.events?.length === 4,
          30_000,
          'the new event',
        );
        const after = await api.post('/v1/exports', body);
        expect(after.status, after.text).to.equal(200);
        expect(after.body).to.include({ status: 'queued', reused: false });
        expect(after.body.job_id).to.not.equal(first.body.job_id);
        expect((await finished(api, after.body.job_id)).result.rows).to.equal(4);
        expect((await api.post('/v1/exports', body)).body).to.deep.equal({
          job_id: after.body.job_id,
          status: 'succeeded',
          reused: true,
        });
      });

      it(`answers 429 with a message once the account's unexpired files hold ${MAX_BYTES} bytes; other accounts go on`, async () => {
        const body = { ...bigScope, what: 'events', format: 'ndjson' };
        const first = await big.post('/v1/exports', body);
        expect(first.status, first.text).to.equal(200);
        const done = await finished(big, first.body.job_id);
        expect(done.result.bytes, 'the file is over the cap').to.be.greaterThan(MAX_BYTES);

        const refused = await big.post('/v1/exports', { ...body, format: 'csv' });
        expect(refused.status, refused.text).to.equal(429);
        expect(Object.keys(refused.body)).to.deep.equal(['detail']);
        expect(refused.body.detail).to.equal(
          `This account's export files hold ${done.result.bytes.toLocaleString('en-US')} bytes, the most it may hold (${MAX_BYTES.toLocaleString('en-US')} bytes); files expire 24 hours after they were written, the next at ${new Date(done.result.expires_at).toISOString()}`,
        );
        const retryAfter = Number(refused.headers.get('retry-after'));
        expect(retryAfter).to.be.within(23 * 3600, 24 * 3600);
        expect((await exportJobs(spoor, big)).map((j) => j.job_id)).to.deep.equal([first.body.job_id]);

        // The identical request costs no bytes: still answered with the file held.
        const same = await big.post('/v1/exports', body);
        expect(same.status, same.text).to.equal(200);
        expect(same.body).to.deep.equal({ job_id: first.body.job_id, status: 'succeeded', reused: true });

        // Once the file expired it holds nothing (the hourly purge removes it), and exports start again.
        const stored = (await spoor.store.jobs.get(first.body.job_id))!;
        await spoor.store.jobs.put({
          ...stored,
          result: { ...(stored.result as object), expires_at: Date.now() - 1 },
          updated_at: stored.updated_at + 1,
        });
        const again = await big.post('/v1/exports', { ...body, format: 'csv' });
        expect(again.status, again.text).to.equal(200);
        expect(again.body).to.include({ reused: false });
        await finished(big, again.body.job_id);
      });
    });

    describe('no worker: exports stay queued', () => {
      let spoor: Harness;
      let api: ApiClient;
      let other: ApiClient;
      const scope = { origin: 'http://localhost:4712', project: 'quota/queued' };
      const otherScope = { origin: 'http://localhost:4713', project: 'quota/other' };

      before(async function () {
        // The gateway alone: nothing takes the jobs, as when every worker is busy.
        const started = await startSpoor(mode, { SPOOR_SERVICES: 'gateway', SPOOR_EXPORT_MAX_ACTIVE: '2' });
        requireEngine(this, started ? 'ok' : null, `engines for ${mode} mode`);
        spoor = started!;
        api = await signUp(spoor.url);
        other = await signUp(spoor.url);
        expect((await api.post('/v1/users/projects', scope)).status).to.equal(200);
        expect((await other.post('/v1/users/projects', otherScope)).status).to.equal(200);
      });

      after(async () => {
        await spoor?.stop();
      });

      it('answers 429 with a message past 2 exports queued or running at once, per account', async () => {
        const bodies = [1, 2, 3, 4, 5].map((i) => ({ ...scope, what: 'sessions', format: 'csv', window_start: i }));
        const first = await api.post('/v1/exports', bodies[0]);
        expect(first.status, first.text).to.equal(200);
        // The rest at once: the check and the queueing of one account run one at a time.
        const rest = await Promise.all(bodies.slice(1).map((b) => api.post('/v1/exports', b)));
        expect(rest.map((r) => r.status)).to.have.members([200, 429, 429, 429]);
        for (const res of rest.filter((r) => r.status === 429)) {
          expect(res.body).to.deep.equal({
            detail:
              'This account has 2 exports queued or running, the most it may have at once (2); wait for one to finish (GET /v1/jobs/{job_id}) and try again',
          });
          expect(res.headers.get('retry-after')).to.equal('10');
        }
        expect(await exportJobs(spoor, api)).to.have.length(2);

        // An identical request joins the queued export instead of taking a third place.
        const same = await api.post('/v1/exports', bodies[0]);
        expect(same.status, same.text).to.equal(200);
        expect(same.body).to.deep.equal({ job_id: first.body.job_id, status: 'queued', reused: true });

        // The cap is the account's: another account queues its own.
        const theirs = await other.post('/v1/exports', { ...otherScope, what: 'sessions', format: 'csv' });
        expect(theirs.status, theirs.text).to.equal(200);

        // A job that finished frees its place.
        const stored = (await spoor.store.jobs.get(first.body.job_id))!;
        await spoor.store.jobs.put({ ...stored, status: 'failed', error: 'test', updated_at: stored.updated_at + 1 });
        expect((await api.post('/v1/exports', bodies[4])).status).to.equal(200);
      });
    });
  });
}
