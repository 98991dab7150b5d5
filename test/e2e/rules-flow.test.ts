import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import type { SessionState } from '@spoor/schemas';
import { requireEngine } from '@spoor/testkit';
import { MODES } from '../support/engine-env.js';
import { ApiClient, signUp } from '../support/api-client.js';
import { postAsBrowser, startSpoor, waitFor, type Harness } from '../support/spoor-harness.js';

/** A stored session as the sessionizer would have written it. */
function sessionState(projectId: string, sessionId: string, eventCount: number, lastEventAt: number): SessionState {
  return {
    session_id: sessionId,
    project_id: projectId,
    first_event_at: lastEventAt - 1000,
    last_event_at: lastEventAt,
    duration_ms: 1000,
    event_count: eventCount,
    actions: { pageview: eventCount },
    entry_url: 'http://localhost:4000/',
    exit_url: 'http://localhost:4000/',
    page_count: eventCount,
    referrer: null,
    utm: { source: null, medium: null, campaign: null, term: null, content: null },
    browser: { name: 'Chrome', version: '121' },
    os: { name: 'Linux', version: null },
    device: { type: 'desktop', vendor: null, model: null },
    geo: { country: 'DE', region: null, city: null, latitude: null, longitude: null },
    attributes: {},
    tags: [],
    classification: null,
    updated_at: lastEventAt,
    seen: [],
  };
}

async function waitForJob(api: ApiClient, jobId: string, timeoutMs = 120_000) {
  const res = await waitFor(
    () => api.get(`/v1/jobs/${jobId}`),
    (r) => r.status === 200 && ['succeeded', 'failed'].includes(r.body.status),
    timeoutMs,
    `job ${jobId}`,
  );
  return res.body;
}

for (const mode of MODES) {
  describe(`Rules, classification, attributes, tags and jobs: ${mode}`, function () {
    this.timeout(240_000);
    let spoor: Harness;
    let api: ApiClient;
    let other: ApiClient;
    const origin = 'http://localhost:4000';
    const project = 'rules/web';
    const scope = { origin, project };
    const t0 = Date.UTC(2026, 10, 22, 8, 0, 0);

    const engaged = {
      ...scope,
      rule_id: 'engaged',
      logic: { '>=': [{ var: 'event_count' }, 3] },
      tags: ['engaged'],
      label: 'Engaged visitor',
    };
    const plan = {
      ...scope,
      rule_id: 'plan',
      kind: 'attribute',
      logic: { '==': [{ var: 'action' }, 'signup'] },
      attribute: 'plan',
      value: { var: 'payload.plan' },
    };

    async function send(sessionId: string, actions: Array<{ action: string; payload?: object }>, start = t0) {
      const events = actions.map((a, i) => ({
        project,
        action: a.action,
        timestamp: start + i * 1000,
        session_id: sessionId,
        url: 'http://localhost:4000/',
        payload: a.payload ?? {},
      }));
      const res = await postAsBrowser(spoor.url, origin, events);
      expect(res.status).to.equal(200);
    }

    before(async function () {
      const started = await startSpoor(mode);
      requireEngine(this, started ? 'ok' : null, `engines for ${mode} mode`);
      spoor = started!;
      api = await signUp(spoor.url);
      other = await signUp(spoor.url);
      expect((await api.post('/v1/users/projects', scope)).status).to.equal(200);
      expect(
        (await other.post('/v1/users/projects', { origin: 'http://localhost:4001', project: 'other/web' })).status,
      ).to.equal(200);
    });
    after(async () => spoor?.stop());

    it('creates, reads, versions and disables rules', async () => {
      const created = await api.post('/v1/rules', engaged);
      expect(created.status, created.text).to.equal(200);
      expect(created.body).to.include({
        rule_id: 'engaged',
        version: 1,
        kind: 'classification',
        enabled: true,
        label: 'Engaged visitor',
        origin,
        project,
      });
      expect(created.body.logic).to.deep.equal(engaged.logic);

      const updated = await api.post('/v1/rules', { ...engaged, logic: { '>=': [{ var: 'event_count' }, 4] } });
      expect(updated.body).to.include({ version: 2, created_at: created.body.created_at });
      expect((await api.get('/v1/rules/engaged', scope)).body.logic).to.deep.equal({
        '>=': [{ var: 'event_count' }, 4],
      });
      const versions = await api.get('/v1/rules/engaged/versions', scope);
      expect(versions.body.versions.map((v: any) => v.version)).to.deep.equal([1, 2]);
      expect(versions.body.versions[0].logic).to.deep.equal(engaged.logic);

      const disabled = await api.delete('/v1/rules/engaged', scope);
      expect(disabled.status, disabled.text).to.equal(200);
      expect(disabled.body).to.include({ enabled: false, version: 3 });
      const read = await api.get('/v1/rules/engaged', scope);
      expect(read.status).to.equal(200);
      expect(read.body.enabled).to.equal(false);
      // DELETE with only the path, as the spec lists it, finds the rule among the account's projects.
      const again = await api.post('/v1/rules', engaged);
      expect(again.body).to.include({ version: 4, enabled: true });
      expect((await api.delete('/v1/rules/engaged')).body).to.include({ enabled: false, version: 5 });
      expect((await api.post('/v1/rules', engaged)).body).to.include({ version: 6, enabled: true });

      const list = await api.get('/v1/rules/', scope);
      expect(list.body.rules.map((r: any) => [r.rule_id, r.enabled])).to.deep.equal([['engaged', true]]);
      expect((await api.get('/v1/rules/nope', scope)).status).to.equal(404);
      expect((await api.delete('/v1/rules/nope', scope)).status).to.equal(404);
    });

    it('refuses bad rule logic with 422 and the location of the fault', async () => {
      const cases: Array<[object, Array<string | number>]> = [
        [{ ...engaged, logic: { frobnicate: [1, 2] } }, ['body', 'logic']],
        [{ ...engaged, logic: { and: [true, { nope: 1 }] } }, ['body', 'logic', 'and', 1]],
        [{ ...engaged, logic: { '==': [1, 1], '!=': [1, 2] } }, ['body', 'logic']],
        [{ ...engaged, logic: JSON.parse('['.repeat(40) + ']'.repeat(40)) }, ['body', 'logic']],
        [{ ...engaged, logic: { in: ['x', 'y'.repeat(40_000)] } }, ['body', 'logic']],
        [{ ...engaged, logic: undefined }, ['body', 'logic']],
        [{ ...engaged, rule_id: '' }, ['body', 'rule_id']],
        [{ ...plan, attribute: undefined }, ['body', 'attribute']],
        [{ ...engaged, kind: 'sometimes' }, ['body', 'kind']],
      ];
      for (const [body, loc] of cases) {
        const res = await api.post('/v1/rules', body);
        expect(res.status, JSON.stringify(body).slice(0, 200)).to.equal(422);
        const locs = res.body.detail.map((d: any) => d.loc);
        expect(
          locs.some((l: any[]) => JSON.stringify(l.slice(0, loc.length)) === JSON.stringify(loc)),
          JSON.stringify(res.body),
        ).to.equal(true);
      }
      expect((await api.get('/v1/rules/engaged', { origin })).status).to.equal(422);
      expect((await api.get('/v1/rules', { project })).body.detail[0].loc).to.deep.equal(['query', 'origin']);
    });

    it('tests YAML rules against sample sessions without writing anything', async () => {
      const yaml = [
        'rules:',
        '  - rule_id: long',
        '    logic: {">": [{var: duration_ms}, 60000]}',
        '    tags: [long]',
        '  - rule_id: german',
        '    logic:',
        '      "==": [{var: geo.country}, DE]',
        '  - rule_id: buyer-plan',
        '    kind: attribute',
        '    logic: {"==": [{var: action}, buy]}',
        '    attribute: plan',
        '    value: {var: payload.plan}',
        '  - rule_id: pro',
        '    logic: {"==": [{var: attributes.plan}, pro]}',
      ].join('\n');
      const sessions = [
        { session_id: 'a', duration_ms: 120_000, geo: { country: 'DE' }, attributes: {} },
        {
          session_id: 'b',
          duration_ms: 1_000,
          geo: { country: 'FR' },
          attributes: {},
          events: [{ action: 'buy', timestamp: 1, payload: { plan: 'pro' } }],
        },
      ];
      const res = await api.post('/v1/rules/test', { sessions, rules: yaml });
      expect(res.status, res.text).to.equal(200);
      expect(res.body.results.map((r: any) => [r.session_id, r.matched])).to.deep.equal([
        ['a', ['german', 'long']],
        ['b', ['pro']],
      ]);
      expect(res.body.results[1].attributes).to.deep.equal({ plan: 'pro' });
      // A plain list works too, and nothing was saved.
      const list = await api.post('/v1/rules/test', { sessions, rules: '- rule_id: x\n  logic: true\n' });
      expect(list.body.results.map((r: any) => r.matched)).to.deep.equal([['x'], ['x']]);
      expect((await api.get('/v1/rules/long', scope)).status).to.equal(404);

      const syntax = await api.post('/v1/rules/test', {
        sessions,
        rules: 'rules:\n  - rule_id: x\n    logic: {"==": [1, 1]\n',
      });
      expect(syntax.status).to.equal(422);
      expect(syntax.body.detail[0].loc.slice(0, 2)).to.deep.equal(['body', 'rules']);
      expect(syntax.body.detail[0].msg).to.match(/line \d+, column \d+/);

      const bomb = ['a: &a ["x","x","x","x","x","x","x","x","x"]'];
      for (let i = 0; i < 12; i++)
        bomb.push(
          `${String.fromCharCode(98 + i)}: &${String.fromCharCode(98 + i)} [${Array(9)
            .fill(`*${String.fromCharCode(97 + i)}`)
            .join(',')}]`,
        );
      const bombed = await api.post('/v1/rules/test', { sessions, rules: bomb.join('\n') });
      expect(bombed.status).to.equal(422);

      const bad = await api.post('/v1/rules/test', { sessions, rules: '- rule_id: x\n  logic: {nope: 1}\n' });
      expect(bad.status).to.equal(422);
      expect(bad.body.detail[0].loc.slice(0, 4)).to.deep.equal(['body', 'rules', 0, 'logic']);
      expect((await api.post('/v1/rules/test', { sessions })).status).to.equal(422);
      expect((await api.post('/v1/rules/test', { sessions, rules: 'x'.repeat(300 * 1024) })).status).to.equal(422);
    });

    it('classifies live sessions, tags them and extracts attributes', async () => {
      expect((await api.post('/v1/rules', plan)).status).to.equal(200);
      const sid = `live-${randomUUID()}`;
      await send(sid, [{ action: 'pageview' }, { action: 'signup', payload: { plan: 'pro' } }, { action: 'click' }]);
      await waitFor(
        () => api.get(`/v1/sessions/${sid}/tags`, scope),
        (r) => r.status === 200 && r.body.tags.length > 0,
        60_000,
        'the engaged tag',
      );
      const tags = await api.get(`/v1/sessions/${sid}/tags`, scope);
      expect(tags.body.tags).to.deep.equal([{ tag: 'engaged', last_seen: t0 + 2000 }]);
      const summary = await api.get(`/v1/sessions/${sid}`, scope);
      expect(summary.body.classification).to.deep.include({ rule_ids: ['engaged'], labels: ['Engaged visitor'] });
      expect(summary.body.tags).to.deep.equal(['engaged']);
      expect((await api.get(`/v1/sessions/${sid}/attributes`, scope)).body).to.deep.equal({
        attributes: { plan: 'pro' },
      });
      expect((await api.get('/v1/tags', scope)).body.tags).to.deep.include({ tag: 'engaged', last_seen: t0 + 2000 });
      const inWindow = await api.get('/v1/tags/engaged', { ...scope, window_start: t0, window_end: t0 + 3000 });
      expect(inWindow.body.sessions).to.deep.include({ session_id: sid, tagged_at: t0 + 2000 });
      const outside = await api.get('/v1/tags/engaged', { ...scope, window_start: t0 + 3000 });
      expect(outside.body.sessions.map((s: any) => s.session_id)).to.not.include(sid);

      // The list says the same in one request: tags and classification, or the whole summary.
      const listed = await api.get('/v1/sessions', { ...scope, limit: 1000, include: 'tags,classification' });
      const entry = listed.body.sessions.find((s: any) => s.session_id === sid);
      expect(entry).to.deep.equal({
        session_id: sid,
        first_event_at: summary.body.first_event_at,
        last_event_at: summary.body.last_event_at,
        event_count: 3,
        tags: ['engaged'],
        classification: summary.body.classification,
      });
      const whole = await api.get('/v1/sessions', { ...scope, limit: 1000, include: 'summary' });
      expect(whole.body.sessions.find((s: any) => s.session_id === sid)).to.deep.equal(summary.body);
      expect(
        Object.keys((await api.get('/v1/sessions', { ...scope, limit: 1000 })).body.sessions[0]).sort(),
      ).to.deep.equal(['event_count', 'first_event_at', 'last_event_at', 'session_id']);
      const bad = await api.get('/v1/sessions', { ...scope, include: 'tags,everything' });
      expect(bad.status).to.equal(422);
      expect(bad.body.detail[0].loc).to.deep.equal(['query', 'include', 1]);

      // A short session is classified (nothing matched) and stays untagged.
      const short = `short-${randomUUID()}`;
      await send(short, [{ action: 'pageview' }]);
      await waitFor(
        () => api.get(`/v1/sessions/${short}`, scope),
        (r) => r.status === 200 && r.body.classification !== null,
        60_000,
        'the short session classified',
      );
      expect((await api.get(`/v1/sessions/${short}`, scope)).body.classification.rule_ids).to.deep.equal([]);
      expect((await api.get(`/v1/sessions/${short}/tags`, scope)).body.tags).to.deep.equal([]);
    });

    it('stops running a disabled rule', async () => {
      expect((await api.delete('/v1/rules/engaged', scope)).body.enabled).to.equal(false);
      const sid = `after-disable-${randomUUID()}`;
      await send(sid, [{ action: 'pageview' }, { action: 'click' }, { action: 'click' }, { action: 'click' }]);
      await waitFor(
        () => api.get(`/v1/sessions/${sid}`, scope),
        (r) => r.status === 200 && r.body.event_count === 4 && r.body.classification !== null,
        60_000,
        'the session classified',
      );
      expect((await api.get(`/v1/sessions/${sid}`, scope)).body.classification.rule_ids).to.deep.equal([]);
      expect((await api.get(`/v1/sessions/${sid}/tags`, scope)).body.tags).to.deep.equal([]);
      expect((await api.post('/v1/rules', engaged)).body.enabled).to.equal(true);
    });

    it('tags by hand, and takes a hand-given tag back', async () => {
      const sid = `manual-${randomUUID()}`;
      await send(sid, [{ action: 'pageview' }]);
      await waitFor(
        () => api.get(`/v1/sessions/${sid}`, scope),
        (r) => r.status === 200,
        60_000,
        'the session',
      );
      const tagged = await api.post(`/v1/sessions/${sid}/tags`, { ...scope, tag: 'vip' });
      expect(tagged.status, tagged.text).to.equal(200);
      expect(tagged.body).to.include({ session_id: sid, tag: 'vip' });
      expect((await api.get(`/v1/sessions/${sid}/tags`, scope)).body.tags.map((t: any) => t.tag)).to.deep.equal([
        'vip',
      ]);
      expect((await api.get('/v1/tags/vip', scope)).body.sessions.map((s: any) => s.session_id)).to.deep.equal([sid]);
      const removed = await api.call('DELETE', `/v1/sessions/${sid}/tags/vip`, scope);
      expect(removed.body).to.deep.equal({ tags: [] });
      expect((await api.get('/v1/tags/vip', scope)).body.sessions).to.deep.equal([]);
      expect((await api.post(`/v1/sessions/${sid}/tags`, { ...scope })).status).to.equal(422);
      expect((await api.post('/v1/sessions/no-such-session/tags', { ...scope, tag: 'x' })).status).to.equal(404);
    });

    it('reclassifies named sessions by trigger, and reports the job', async () => {
      const sid = `trigger-${randomUUID()}`;
      await send(sid, [{ action: 'pageview' }, { action: 'click' }, { action: 'click' }]);
      await waitFor(
        () => api.get(`/v1/sessions/${sid}/tags`, scope),
        (r) => r.body.tags?.length === 1,
        60_000,
        'the session tagged',
      );
      // Tighten the rule: the session no longer matches once reclassified.
      expect(
        (await api.post('/v1/rules', { ...engaged, logic: { '>=': [{ var: 'event_count' }, 10] } })).status,
      ).to.equal(200);
      const queued = await api.post('/v1/trigger/classification', { ...scope, session_ids: [sid, 'missing-session'] });
      expect(queued.status, queued.text).to.equal(200);
      expect(queued.body.status).to.equal('queued');
      const job = await waitForJob(api, queued.body.job_id);
      expect(job).to.include({
        status: 'succeeded',
        kind: 'classification',
        origin,
        project,
        attempts: 1,
        error: null,
      });
      expect(job.result).to.deep.include({ classified: 1, missing: ['missing-session'] });
      expect(job.finished_at).to.be.at.least(job.started_at);
      expect((await api.get(`/v1/sessions/${sid}/tags`, scope)).body.tags).to.deep.equal([]);
      expect((await api.get(`/v1/sessions/${sid}`, scope)).body.classification.rule_ids).to.deep.equal([]);
      expect((await api.get('/v1/jobs')).body.jobs[0].job_id).to.equal(queued.body.job_id);
      expect((await api.post('/v1/rules', engaged)).status).to.equal(200);
    });

    it('backfills 10,000 sessions after a rule change, with progress', async () => {
      const p = (await spoor.store.projects.find(origin, project))!;
      const base = t0 + 3_600_000;
      const states = Array.from({ length: 10_000 }, (_, i) =>
        sessionState(p.project_id, `bf-${String(i).padStart(5, '0')}`, i % 10, base + i),
      );
      for (let i = 0; i < states.length; i += 2000) await spoor.store.sessions.upsert(states.slice(i, i + 2000));
      expect(
        (
          await api.post('/v1/rules', {
            ...scope,
            rule_id: 'deep',
            logic: { '>=': [{ var: 'event_count' }, 7] },
            tags: ['deep'],
          })
        ).status,
      ).to.equal(200);
      const queued = await api.post('/v1/trigger/backfill', scope);
      expect(queued.status, queued.text).to.equal(200);
      const seenProgress: number[] = [];
      const job = await waitFor(
        () => api.get(`/v1/jobs/${queued.body.job_id}`),
        (r) => {
          if (r.body.progress) seenProgress.push(r.body.progress.done);
          return ['succeeded', 'failed'].includes(r.body.status);
        },
        180_000,
        'the backfill',
      );
      expect(job.body.status, JSON.stringify(job.body)).to.equal('succeeded');
      expect(job.body.progress.done).to.equal(job.body.progress.total);
      expect(job.body.progress.total).to.be.at.least(10_000);
      expect(job.body.result.sessions).to.equal(job.body.progress.total);
      // 3 of every 10 synthetic sessions have event_count ≥ 7, and no live session does.
      const window = { ...scope, window_start: base, window_end: base + 10_000, limit: 1000 };
      const first = await api.get('/v1/tags/deep', { ...window, window_end: base + 1000 });
      expect(first.body.sessions).to.have.length(300);
      expect(first.body.sessions.every((s: any) => Number(s.session_id.slice(3)) % 10 >= 7)).to.equal(true);
      expect((await api.get('/v1/tags/deep', window)).body.sessions).to.have.length(1000);
      const sample = await api.get('/v1/sessions/bf-00009', scope);
      expect(sample.body.classification.rule_ids).to.deep.equal(['deep', 'engaged']);

      // Change the rule and backfill again: tags follow the rule.
      expect(
        (
          await api.post('/v1/rules', {
            ...scope,
            rule_id: 'deep',
            logic: { '>=': [{ var: 'event_count' }, 9] },
            tags: ['deep'],
          })
        ).status,
      ).to.equal(200);
      const second = await waitForJob(api, (await api.post('/v1/trigger/backfill', scope)).body.job_id, 180_000);
      expect(second.status).to.equal('succeeded');
      expect((await api.get('/v1/tags/deep', { ...window, window_end: base + 1000 })).body.sessions).to.have.length(
        100,
      );
    });

    it('backfills attributes after an attribute rule changes', async () => {
      const sid = `attr-${randomUUID()}`;
      await send(sid, [{ action: 'signup', payload: { plan: 'team', seats: 5 } }]);
      await waitFor(
        () => api.get(`/v1/sessions/${sid}/attributes`, scope),
        (r) => r.body.attributes?.plan === 'team',
        60_000,
        'the plan attribute',
      );
      expect((await api.post('/v1/rules', { ...plan, value: { var: 'payload.seats' } })).status).to.equal(200);
      const job = await waitForJob(api, (await api.post('/v1/trigger/backfill', scope)).body.job_id, 180_000);
      expect(job.status).to.equal('succeeded');
      expect((await api.get(`/v1/sessions/${sid}/attributes`, scope)).body).to.deep.equal({ attributes: { plan: 5 } });
    });

    it('answers every trigger with a queued job that ends with a readable result or a reason', async () => {
      // The worker's own outputs are proven in outbound-flow.test.ts; here: every trigger path
      // queues, and each job ends — a notification without channels fails, saying why.
      const expected = {
        '/v1/trigger/aggregation': 'succeeded',
        '/v1/trigger/transitions': 'succeeded',
        '/v1/trigger/notification': 'failed',
      } as const;
      for (const [path, status] of Object.entries(expected)) {
        const res = await api.post(path, scope);
        expect(res.status, `${path} ${res.text}`).to.equal(200);
        expect(res.body.status).to.equal('queued');
        const job = await waitForJob(api, res.body.job_id);
        expect(job.status, `${path} ${JSON.stringify(job)}`).to.equal(status);
        if (status === 'failed') expect(job.error).to.match(/no notification channels/i);
        else expect(job.result.window_end - job.result.window_start).to.equal(24 * 3_600_000);
      }
      for (const path of ['/v1/trigger/aggregation', '/v1/trigger/backfill', '/v1/trigger/classification']) {
        const res = await api.post(path, { origin });
        expect(res.status).to.equal(422);
        expect(res.body.detail.map((d: any) => d.loc)).to.deep.include(['body', 'project']);
      }
      const noIds = await api.post('/v1/trigger/classification', { ...scope, session_ids: [] });
      expect(noIds.status).to.equal(422);
      expect(noIds.body.detail[0].loc).to.deep.equal(['body', 'session_ids']);
    });

    it('answers 401 without a token and 404 across accounts on every rule, tag and job endpoint', async () => {
      const job = (await api.post('/v1/trigger/aggregation', scope)).body.job_id;
      const anon = api.withToken(null);
      const calls: Array<[string, string, object | undefined, Record<string, string> | undefined]> = [
        ['GET', '/v1/rules', undefined, scope],
        ['GET', '/v1/rules/engaged', undefined, scope],
        ['GET', '/v1/rules/engaged/versions', undefined, scope],
        ['POST', '/v1/rules', engaged, undefined],
        ['DELETE', '/v1/rules/engaged', undefined, scope],
        ['POST', '/v1/sessions/bf-00001/tags', { ...scope, tag: 'x' }, undefined],
        ['DELETE', '/v1/sessions/bf-00001/tags/x', undefined, scope],
        ['GET', '/v1/tags', undefined, scope],
        ['GET', '/v1/tags/deep', undefined, scope],
        ['GET', `/v1/jobs/${job}`, undefined, undefined],
        ['POST', '/v1/trigger/backfill', scope, undefined],
        ['POST', '/v1/trigger/classification', { ...scope, session_ids: ['bf-00001'] }, undefined],
        ['POST', '/v1/trigger/aggregation', scope, undefined],
        ['POST', '/v1/trigger/notification', scope, undefined],
        ['POST', '/v1/trigger/transitions', scope, undefined],
      ];
      for (const [method, path, body, query] of calls) {
        const unauth = await anon.call(method, path, query, body);
        expect(unauth.status, `${method} ${path} without a token`).to.equal(401);
        expect(unauth.headers.get('www-authenticate')).to.match(/^Bearer/);
        const cross = await other.call(method, path, query, body);
        expect(cross.status, `${method} ${path} from another account: ${cross.text}`).to.equal(404);
      }
      // The rule was not disabled by the other account's DELETE.
      expect((await api.get('/v1/rules/engaged', scope)).body.enabled).to.equal(true);
    });
  });
}
