// Issue 17 end to end, in both modes: an export of each kind and format through POST
// /v1/exports and GET /v1/exports/{id}/file, read back with an independent reader and compared
// with what the read endpoints answer; DELETE /v1/projects, after which no endpoint, no store
// read and no KV key shows anything of the project while another account's project is whole;
// and the 401s, 403s, 404s, 409s and 422s of the three operations.
import { expect } from 'chai';
import { openSessionKey, type ExportFormat, type ExportWhat } from '@spoor/schemas';
import { readExport, requireEngine } from '@spoor/testkit';
import { ApiClient, signUp } from '../support/api-client.js';
import { MODES } from '../support/engine-env.js';
import { postAsBrowser, startSpoor, waitFor, type Harness } from '../support/spoor-harness.js';

const FORMATS: ExportFormat[] = ['csv', 'ndjson', 'parquet'];
const CONTENT_TYPES: Record<ExportFormat, RegExp> = {
  csv: /^text\/csv/,
  ndjson: /^application\/x-ndjson/,
  parquet: /^application\/vnd\.apache\.parquet/,
};

for (const mode of MODES) {
  describe(`Data ownership: exports and project deletion: ${mode}`, function () {
    this.timeout(240_000);
    let spoor: Harness;
    let api: ApiClient;
    let other: ApiClient;
    const origin = 'http://localhost:4700';
    const project = 'owned/web';
    const scope = { origin, project };
    const otherScope = { origin: 'http://localhost:4701', project: 'theirs/web' };
    const t0 = Date.now() - 30 * 60_000;

    async function send(to: { origin: string; project: string }, sessionId: string, actions: string[], start = t0) {
      const events = actions.map((action, i) => ({
        project: to.project,
        action,
        timestamp: start + i * 1000,
        session_id: sessionId,
        event_id: `${sessionId}-${i}`,
        url: `${to.origin}/p${i}?q=${i}`,
        payload: { i, note: `a "quoted", comma ${i}` },
      }));
      const res = await postAsBrowser(spoor.url, to.origin, events);
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
    }

    async function finished(client: ApiClient, jobId: string) {
      const res = await waitFor(
        () => client.get(`/v1/jobs/${jobId}`),
        (r) => ['succeeded', 'failed'].includes(r.body?.status),
        60_000,
        `job ${jobId}`,
      );
      return res.body;
    }

    async function exportOf(client: ApiClient, body: object) {
      const queued = await client.post('/v1/exports', body);
      expect(queued.status, queued.text).to.equal(200);
      // An identical earlier export whose rows are unchanged answers instead (issue 42).
      expect(queued.body.status).to.be.oneOf(queued.body.reused ? ['queued', 'running', 'succeeded'] : ['queued']);
      const job = await finished(client, queued.body.job_id);
      expect(job.status, job.error).to.equal('succeeded');
      return job;
    }

    async function download(client: ApiClient, jobId: string) {
      const res = await fetch(new URL(`/v1/exports/${jobId}/file`, spoor.url), {
        headers: { authorization: `Bearer ${client.token}` },
      });
      return { status: res.status, headers: res.headers, bytes: new Uint8Array(await res.arrayBuffer()) };
    }

    before(async function () {
      const started = await startSpoor(mode, { SPOOR_WEBHOOK_ALLOW_PRIVATE: '1' });
      requireEngine(this, started ? 'ok' : null, `engines for ${mode} mode`);
      spoor = started!;
      api = await signUp(spoor.url);
      other = await signUp(spoor.url);
      expect((await api.post('/v1/users/projects', scope)).status).to.equal(200);
      expect((await other.post('/v1/users/projects', otherScope)).status).to.equal(200);
      await send(scope, 's-one', ['pageview', 'click', 'signup']);
      await send(scope, 's-two', ['pageview', 'pageview'], t0 + 60_000);
      await send(otherScope, 's-theirs', ['pageview', 'click']);
      await waitFor(
        () => api.get('/v1/sessions', { ...scope, limit: 10 }),
        (r) => r.body?.sessions?.length === 2,
        30_000,
        'two sessions',
      );
      await waitFor(
        () => other.get('/v1/sessions', { ...otherScope, limit: 10 }),
        (r) => r.body?.sessions?.length === 1,
        30_000,
        'their session',
      );
    });

    after(async () => {
      await spoor?.stop();
    });

    describe('exports', () => {
      for (const format of FORMATS) {
        it(`exports raw events, enriched events and sessions as ${format}, the rows the read endpoints answer`, async () => {
          const apiRaw = (await api.get('/v1/events', { ...scope, limit: 1000 })).body.events;
          const apiEnriched = (await api.get('/v1/events/enriched', { ...scope, limit: 1000 })).body.events;
          const apiSessions = (await api.get('/v1/sessions', { ...scope, limit: 1000 })).body.sessions;
          expect(apiRaw).to.have.length(5);

          const files: Partial<Record<ExportWhat, Awaited<ReturnType<typeof readExport>>>> = {};
          for (const what of ['events', 'enriched_events', 'sessions'] as const) {
            const job = await exportOf(api, { ...scope, what, format });
            expect(job.result).to.include({ what, format, rows: what === 'sessions' ? 2 : 5 });
            expect(job.result.expires_at).to.be.within(Date.now() + 23 * 3_600_000, Date.now() + 25 * 3_600_000);
            const file = await download(api, job.job_id);
            expect(file.status).to.equal(200);
            expect(file.headers.get('content-type')).to.match(CONTENT_TYPES[format]);
            expect(file.headers.get('content-disposition')).to.equal(`attachment; filename="${job.result.file_name}"`);
            expect(Number(file.headers.get('content-length')))
              .to.equal(file.bytes.length)
              .and.equal(job.result.bytes);
            files[what] = await readExport(format, file.bytes);
          }

          expect(
            files.events!.map((r) => [
              r.event_id,
              r.action,
              Number(r.timestamp),
              JSON.parse(r.payload!),
              r.ip,
              r.user_agent,
              r.session_id,
            ]),
          ).to.deep.equal(
            apiRaw.map((e: any) => [e.event_id, e.action, e.timestamp, e.payload, e.ip, e.user_agent, e.session_id]),
          );
          expect(
            files.enriched_events!.map((r) => [
              r.event_id,
              r.browser_name,
              r.path,
              JSON.parse(r.query!),
              r.bot,
              r.session_id,
            ]),
          ).to.deep.equal(
            apiEnriched.map((e: any) => [e.event_id, e.browser.name, e.path, e.query, String(e.bot), e.session_id]),
          );
          // Exports run oldest first; the session listing answers newest first.
          expect(
            files.sessions!.map((r) => [
              r.session_id,
              Number(r.first_event_at),
              Number(r.last_event_at),
              Number(r.event_count),
            ]),
          ).to.deep.equal(
            [...apiSessions]
              .reverse()
              .map((s: any) => [s.session_id, s.first_event_at, s.last_event_at, s.event_count]),
          );
        });
      }

      it('exports only the window, end exclusive', async () => {
        const job = await exportOf(api, {
          ...scope,
          what: 'events',
          format: 'ndjson',
          window_start: t0 + 1000,
          window_end: t0 + 60_000,
        });
        const rows = await readExport('ndjson', (await download(api, job.job_id)).bytes);
        expect(rows.map((r) => r.event_id)).to.deep.equal(['s-one-1', 's-one-2']);
      });

      it('answers 401 without credentials, 422 to bad bodies and ids, 404 to another account', async () => {
        const anonymous = api.withToken(null);
        expect((await anonymous.post('/v1/exports', { ...scope, what: 'events', format: 'csv' })).status).to.equal(401);
        const job = await exportOf(api, { ...scope, what: 'sessions', format: 'csv' });
        expect((await anonymous.get(`/v1/exports/${job.job_id}/file`)).status).to.equal(401);
        expect(
          (await api.withToken('not-a-token').get(`/v1/exports/${job.job_id}/file`)).headers.get('www-authenticate'),
        ).to.equal('Bearer');

        const bad: Array<[object, string[]]> = [
          [{ ...scope, format: 'csv' }, ['body', 'what']],
          [{ ...scope, what: 'events' }, ['body', 'format']],
          [{ ...scope, what: 'visitors', format: 'csv' }, ['body', 'what']],
          [{ ...scope, what: 'events', format: 'xlsx' }, ['body', 'format']],
          [{ origin, what: 'events', format: 'csv' }, ['body', 'project']],
          [{ ...scope, what: 'events', format: 'csv', window_start: 10, window_end: 10 }, ['body', 'window_end']],
          [{ ...scope, what: 'events', format: 'csv', window_start: -1 }, ['body', 'window_start']],
        ];
        for (const [body, loc] of bad) {
          const res = await api.post('/v1/exports', body);
          expect(res.status, JSON.stringify(body)).to.equal(422);
          expect(
            res.body.detail.map((d: any) => d.loc),
            JSON.stringify(body),
          ).to.deep.include(loc);
        }
        const longId = await api.get(`/v1/exports/${'x'.repeat(65)}/file`);
        expect(longId.status).to.equal(422);
        expect(longId.body.detail[0].loc).to.deep.equal(['path', 'export_id']);

        // Another account's project and another account's file answer as if they did not exist.
        const theirs = await api.post('/v1/exports', { ...otherScope, what: 'sessions', format: 'csv' });
        expect(theirs.status).to.equal(404);
        expect(theirs.body).to.deep.equal({ detail: 'Project not found' });
        const stolen = await other.get(`/v1/exports/${job.job_id}/file`);
        expect(stolen.status).to.equal(404);
        expect(stolen.body).to.deep.equal({ detail: 'Export not found' });
        expect((await other.get(`/v1/jobs/${job.job_id}`)).status).to.equal(404);
        expect((await api.get('/v1/exports/00000000-0000-0000-0000-000000000000/file')).status).to.equal(404);
        // A job of another kind is no export.
        const transitions = await api.post('/v1/trigger/transitions', scope);
        expect((await api.get(`/v1/exports/${transitions.body.job_id}/file`)).status).to.equal(404);
      });

      it('keeps raw and enriched events behind the DNS gate; sessions are not gated', async () => {
        const unverified = { origin: 'https://unverified.example', project: 'gate/web' };
        expect((await api.post('/v1/users/projects', unverified)).status).to.equal(200);
        for (const what of ['events', 'enriched_events']) {
          const res = await api.post('/v1/exports', { ...unverified, what, format: 'csv' });
          expect(res.status, what).to.equal(403);
          expect(res.body.detail).to.match(/not verified/);
        }
        const sessions = await exportOf(api, { ...unverified, what: 'sessions', format: 'csv' });
        expect(sessions.result.rows).to.equal(0);
        expect((await download(api, sessions.job_id)).status).to.equal(200);
      });

      it('answers 409 until the export succeeded and 404 once it expired (24 hours)', async () => {
        const job = await exportOf(api, { ...scope, what: 'sessions', format: 'ndjson' });
        const stored = (await spoor.store.jobs.get(job.job_id))!;
        await spoor.store.jobs.put({ ...stored, status: 'running', updated_at: stored.updated_at + 1 });
        const running = await api.get(`/v1/exports/${job.job_id}/file`);
        expect(running.status).to.equal(409);
        expect(running.body.detail).to.match(/running/);
        const result = stored.result as { expires_at: number };
        await spoor.store.jobs.put({
          ...stored,
          result: { ...result, expires_at: Date.now() - 1 },
          updated_at: stored.updated_at + 2,
        });
        const expired = await api.get(`/v1/exports/${job.job_id}/file`);
        expect(expired.status).to.equal(404);
        expect(expired.body.detail).to.match(/expired/);
      });
    });

    describe('project deletion', () => {
      it("answers 401, 422 without a matching confirmation, 404 for another account's project", async () => {
        expect((await api.withToken(null).delete('/v1/projects', { ...scope, confirm: project })).status).to.equal(401);
        for (const [query, loc] of [
          [scope, 'confirm'],
          [{ ...scope, confirm: 'owned/WEB' }, 'confirm'],
          [{ origin, confirm: project }, 'project'],
        ] as const) {
          const res = await api.delete('/v1/projects', query);
          expect(res.status, JSON.stringify(query)).to.equal(422);
          expect(res.body.detail.map((d: any) => d.loc)).to.deep.include(['query', loc]);
        }
        const theirs = await api.delete('/v1/projects', { ...otherScope, confirm: otherScope.project });
        expect(theirs.status).to.equal(404);
        expect((await other.get('/v1/sessions', otherScope)).body.sessions).to.have.length(1);
      });

      it('deletes the project and everything in it; no endpoint, store read or KV key shows any of it; the other account is untouched', async () => {
        const p = (await spoor.store.projects.find(origin, project))!;
        const kv = spoor.process.adapters.kv;
        // Some of what the project holds beyond events and sessions.
        expect(
          (
            await api.post('/v1/rules', {
              ...scope,
              rule_id: 'r-any',
              logic: { '>=': [{ var: 'event_count' }, 1] },
              tags: ['ruled'],
            })
          ).status,
        ).to.equal(200);
        expect((await api.post('/v1/sessions/s-one/tags', { ...scope, tag: 'by-hand' })).status).to.equal(200);
        expect(
          (await api.post('/v1/webhooks', { ...scope, url: 'http://127.0.0.1:9/hook', events: ['digest.created'] }))
            .status,
        ).to.equal(200);
        expect(
          (await api.post('/v1/schedules', { ...scope, kind: 'transitions', interval_ms: 3_600_000 })).status,
        ).to.equal(200);
        expect(
          (await api.post('/v1/channels', { ...scope, name: 'chat', kind: 'slack', url: 'http://127.0.0.1:9/chat' }))
            .status,
        ).to.equal(200);
        const aggregation = await api.post('/v1/trigger/aggregation', {
          ...scope,
          window_start: t0 - 3_600_000,
          window_end: t0 + 3_600_000,
        });
        expect((await finished(api, aggregation.body.job_id)).status).to.equal('succeeded');
        expect((await api.get('/v1/projects/overview', scope)).body.overviews).to.have.length(1);
        const exported = await exportOf(api, { ...scope, what: 'events', format: 'parquet' });
        expect(await kv.get(openSessionKey(p.project_id, 's-one'))).to.not.equal(null);

        const queued = await api.delete('/v1/projects', { ...scope, confirm: project });
        expect(queued.status, queued.text).to.equal(200);
        const job = await finished(api, queued.body.job_id);
        expect(job).to.include({ status: 'succeeded', kind: 'project_deletion', origin, project });

        // The API: the project is gone from the listings and every scoped read answers 404.
        expect((await api.get('/v1/projects')).body.projects.map((x: any) => x.project)).to.not.include(project);
        for (const path of [
          '/v1/sessions',
          '/v1/events',
          '/v1/events/enriched',
          '/v1/events/actions',
          '/v1/tags',
          '/v1/rules',
          '/v1/projects/overview',
          '/v1/webhooks',
          '/v1/schedules',
          '/v1/channels',
          '/v1/alerts',
          '/v1/sessions/s-one',
          '/v1/sessions/s-one/events',
          '/v1/rules/r-any',
        ]) {
          const res = await api.get(path, scope);
          expect(res.status, path).to.equal(404);
          expect(res.body, path).to.deep.equal({ detail: 'Project not found' });
        }
        expect((await download(api, exported.job_id)).status).to.equal(404);
        // Of the project's jobs only the deletion's own record is left.
        expect(
          (await api.get('/v1/jobs', { limit: 100 })).body.jobs
            .filter((j: any) => j.project === project && j.origin === origin)
            .map((j: any) => j.kind),
        ).to.deep.equal(['project_deletion']);
        expect((await api.get(`/v1/jobs/${aggregation.body.job_id}`)).status).to.equal(404);

        // The store, read directly.
        const s = spoor.store;
        expect(await s.projects.get(p.project_id)).to.equal(null);
        expect(await s.events.countRaw(p.project_id)).to.equal(0);
        expect(await s.events.countEnriched(p.project_id)).to.equal(0);
        expect(await s.sessions.count(p.project_id)).to.equal(0);
        expect(await s.tags.list(p.project_id)).to.deep.equal([]);
        expect(await s.rules.list(p.project_id)).to.deep.equal([]);
        expect(await s.classifications.getMany(p.project_id, ['s-one', 's-two'])).to.deep.equal([]);
        for (const kind of ['overview', 'webhook', 'schedule', 'channel', 'transitions'])
          expect(await s.records.list(kind, p.project_id, { limit: 10 }), kind).to.deep.equal([]);
        // The KV: open session states, dedup claims and the rules stamp are gone.
        const keys = ['s-one', 's-two']
          .map((sid) => openSessionKey(p.project_id, sid))
          .concat([`rules:stamp:${p.project_id}`, `dedup:${p.project_id}:s-one-0`]);
        expect(await kv.mget(keys)).to.deep.equal(keys.map(() => null));

        // The other account's project is whole; the pair can be registered afresh, empty.
        expect((await other.get('/v1/events', { ...otherScope, limit: 100 })).body.events).to.have.length(2);
        expect(
          await kv.get(
            openSessionKey((await s.projects.find(otherScope.origin, otherScope.project))!.project_id, 's-theirs'),
          ),
        ).to.not.equal(null);
        expect((await api.post('/v1/users/projects', scope)).status).to.equal(200);
        expect((await api.get('/v1/events', scope)).body.events).to.deep.equal([]);
      });
    });
  });
}
