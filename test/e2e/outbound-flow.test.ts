// Issue 5 end to end: every trigger runs to `succeeded` and leaves a readable result; a digest
// reaches a real SMTP server and a chat endpoint; rule matches and threshold crossings arrive
// as signed webhooks that survive failures; the configuration endpoints answer 401, 404 and 422.
import { expect } from 'chai';
import { RECORD_KINDS, type ScheduleData } from '@spoor/schemas';
import { requireEngine, startSmtpCapture, type SmtpCapture } from '@spoor/testkit';
import { verifyWebhook } from '@spoor/webhooks';
import { ApiClient, signUp } from '../support/api-client.js';
import { MODES } from '../support/engine-env.js';
import { startHttpReceiver, type HttpReceiver } from '../support/http-receiver.js';
import { postAsBrowser, startSpoor, waitFor, type Harness } from '../support/spoor-harness.js';

for (const mode of MODES) {
  describe(`Worker outputs: aggregation, transitions, digests, webhooks, alerts, schedules: ${mode}`, function () {
    this.timeout(240_000);
    let spoor: Harness;
    let api: ApiClient;
    let other: ApiClient;
    let smtp: SmtpCapture;
    let chat: HttpReceiver;
    let hooks: HttpReceiver;
    const origin = 'http://localhost:4100';
    const project = 'outbound/web';
    const scope = { origin, project };
    // Recent, so that tag-count alerts over the last hour see these sessions.
    const t0 = Date.now() - 10 * 60_000;
    const window = { window_start: t0 - 3_600_000, window_end: t0 + 3_600_000 };

    async function send(sessionId: string, actions: string[], start = t0) {
      const events = actions.map((action, i) => ({
        project,
        action,
        timestamp: start + i * 1000,
        session_id: sessionId,
        url: `http://localhost:4100/${action === 'pageview' ? `p${i}` : ''}`,
        payload: {},
      }));
      const res = await postAsBrowser(spoor.url, origin, events);
      expect(res.status).to.equal(200);
    }

    async function runJob(kind: string, body: object) {
      const queued = await api.post(`/v1/trigger/${kind}`, { ...scope, ...body });
      expect(queued.status, queued.text).to.equal(200);
      const res = await waitFor(
        () => api.get(`/v1/jobs/${queued.body.job_id}`),
        (r) => ['succeeded', 'failed'].includes(r.body?.status),
        60_000,
        `${kind} job`,
      );
      return res.body;
    }

    before(async function () {
      [smtp, chat, hooks] = await Promise.all([startSmtpCapture(), startHttpReceiver(), startHttpReceiver()]);
      const started = await startSpoor(mode, {
        SPOOR_SMTP_URL: `smtp://127.0.0.1:${smtp.port}`,
        SPOOR_WEBHOOK_ALLOW_PRIVATE: '1',
        SPOOR_WORKER_TICK_MS: '200',
        SPOOR_WEBHOOK_RETRY_BASE_MS: '100',
      });
      requireEngine(this, started ? 'ok' : null, `engines for ${mode} mode`);
      spoor = started!;
      api = await signUp(spoor.url);
      other = await signUp(spoor.url);
      expect((await api.post('/v1/users/projects', scope)).status).to.equal(200);
      await send('s-a', ['pageview', 'pageview', 'signup']);
      await send('s-b', ['pageview']);
      await send('s-c', ['pageview', 'click'], t0 + 5000);
      await waitFor(
        () => api.get('/v1/sessions', { ...scope, limit: 10 }),
        (r) => r.body?.sessions?.length === 3,
        30_000,
        'three sessions',
      );
    });

    after(async () => {
      await spoor?.stop();
      await Promise.all([smtp?.close(), chat?.close(), hooks?.close()]);
    });

    it('aggregates a window into an overview, and a re-run replaces it', async () => {
      const job = await runJob('aggregation', window);
      expect(job.status, job.error).to.equal('succeeded');
      expect(job.result).to.include({ events: 6, sessions: 3 });
      await runJob('aggregation', window);
      const res = await api.get('/v1/projects/overview', scope);
      expect(res.status).to.equal(200);
      const mine = res.body.overviews.filter(
        (o: any) => o.window_start === window.window_start && o.window_end === window.window_end,
      );
      expect(mine).to.have.length(1);
      expect(mine[0]).to.include({ origin, project, events: 6, sessions: 3 });
      // s-b and s-c saw one page each.
      expect(mine[0].bounce_rate).to.be.closeTo(2 / 3, 0.001);
      expect(mine[0].actions).to.deep.equal([
        { name: 'pageview', count: 4 },
        { name: 'click', count: 1 },
        { name: 'signup', count: 1 },
      ]);
      expect(mine[0].browsers).to.deep.equal([{ name: 'Chrome', count: 3 }]);
      // A two-hour window charts by the minute: every minute present, the traffic in the one at t0.
      expect(mine[0].bucket_ms).to.equal(60_000);
      expect(mine[0].series).to.have.length(120);
      expect(mine[0].series[0].start).to.equal(window.window_start);
      expect(mine[0].series.filter((p: any) => p.events > 0)).to.deep.equal([
        { start: t0, events: 6, visitors: 1, sessions: 3 },
      ]);
    });

    it('computes the transition matrix with start and end states', async () => {
      const job = await runJob('transitions', window);
      expect(job.status, job.error).to.equal('succeeded');
      const res = await api.get('/v1/transitions', scope);
      expect(res.status, res.text).to.equal(200);
      expect(res.body.sessions).to.equal(3);
      const cell = (from: string, to: string) => res.body.transitions.find((c: any) => c.from === from && c.to === to);
      expect(cell('$start', 'pageview')).to.include({ count: 3, probability: 1 });
      expect(cell('pageview', 'pageview').count).to.equal(1);
      expect(cell('pageview', 'signup').count).to.equal(1);
      expect(cell('pageview', 'click').count).to.equal(1);
      expect(cell('pageview', '$end').count).to.equal(1);
      for (const from of res.body.states.filter((s: string) => s !== '$end')) {
        const sum = res.body.transitions
          .filter((c: any) => c.from === from)
          .reduce((n: number, c: any) => n + c.probability, 0);
        expect(sum, `probabilities out of ${from}`).to.be.closeTo(1, 1e-6);
      }
    });

    it('fails a notification with no channel to send to, saying so', async () => {
      const job = await runJob('notification', window);
      expect(job.status).to.equal('failed');
      expect(job.error).to.match(/no notification channels/i);
    });

    /** The confirmation link in the mail to `address` (quoted-printable soft breaks undone). */
    function confirmationLink(address: string): string {
      const mail = smtp.received.find((m) => m.rcptTo.includes(address) && /Confirm Spoor notifications/.test(m.raw))!;
      const body = mail.raw.replace(/=\r?\n/g, '').replace(/=3D/g, '=');
      return /(https?:\/\/[^\s"<>]+\/v1\/recipients\/confirm\?token=[A-Za-z0-9._%-]+)/.exec(body)![1]!;
    }

    it('mails each email recipient one confirmation, and sends digests only to those who confirmed (issue 13)', async () => {
      const mail = await api.post('/v1/channels', {
        ...scope,
        name: 'team mail',
        kind: 'email',
        recipients: ['team@example.com', 'stranger@example.com'],
      });
      expect(mail.status, mail.text).to.equal(200);
      expect(mail.body.confirmed).to.deep.equal([]);
      await waitFor(
        async () => smtp.received.length,
        (n) => n >= 2,
        10_000,
        'two confirmation mails',
      );
      expect(smtp.received.map((m) => m.rcptTo.join())).to.have.members(['team@example.com', 'stranger@example.com']);
      // Before anyone confirms, a digest reaches nobody, and says why.
      const unconfirmed = await runJob('notification', window);
      expect(unconfirmed.status).to.equal('failed');
      expect(unconfirmed.error).to.match(/No confirmed recipient/);
      await new Promise((r) => setTimeout(r, 300));
      expect(smtp.received).to.have.length(2);
      // team@ follows its link; stranger@ never does.
      const confirmed = await fetch(confirmationLink('team@example.com')).then(async (r) => ({
        status: r.status,
        body: (await r.json()) as any,
      }));
      expect(confirmed).to.deep.equal({
        status: 200,
        body: { confirmed: true, address: 'team@example.com', channel: 'team mail' },
      });
      expect((await api.get(`/v1/channels/${mail.body.channel_id}`, scope)).body.confirmed).to.deep.equal([
        'team@example.com',
      ]);
      const slack = await api.post('/v1/channels', { ...scope, name: 'slack', kind: 'slack', url: chat.url });
      expect(slack.status, slack.text).to.equal(200);
      expect((await api.get('/v1/channels', scope)).body.channels).to.have.length(2);
      // A saved funnel shows in the digest over its window (issue 18): 3 sessions saw a pageview, 1 went on to sign up.
      const funnel = await api.post('/v1/funnels', {
        ...scope,
        name: 'To signup',
        steps: [{ action: 'pageview' }, { action: 'signup' }],
      });
      expect(funnel.status, funnel.text).to.equal(200);
      const job = await runJob('notification', window);
      expect(job.status, job.error).to.equal('succeeded');
      expect(job.result.channels.map((c: any) => c.ok)).to.deep.equal([true, true]);
      await waitFor(
        async () => smtp.received.length,
        (n) => n >= 3,
        10_000,
        'the digest',
      );
      await new Promise((r) => setTimeout(r, 300));
      expect(smtp.received).to.have.length(3); // still one confirmation each: nothing re-sent
      expect(smtp.received[2]!.rcptTo).to.deep.equal(['team@example.com']);
      expect(smtp.received[2]!.raw).to.match(/Subject: .*outbound\/web/);
      expect(chat.received).to.have.length(1);
      const chatText = JSON.parse(chat.received[0]!.body).text as string;
      expect(chatText).to.match(/3 sessions|Sessions[^\n]*3/);
      expect(chatText)
        .to.match(/Funnel: To signup/)
        .and.match(/1\. pageview[^\n]*3/)
        .and.match(/2\. signup[^\n]*1 \(33\.3%\)/);
      expect(smtp.received[2]!.raw).to.match(/Funnel: To signup/);
      expect((await api.delete(`/v1/funnels/${funnel.body.funnel_id}`, scope)).status).to.equal(200);
    });

    it('refuses an unknown or altered confirmation token with 404', async () => {
      for (const token of [
        'nope',
        `${'x'.repeat(36)}.abc`,
        confirmationLink('stranger@example.com').split('token=')[1]! + 'x',
      ]) {
        const res = await fetch(`${spoor.url}/v1/recipients/confirm?token=${token}`);
        expect(res.status, token).to.equal(404);
        expect(((await res.json()) as any).detail).to.match(/Unknown or expired/);
      }
      expect((await fetch(`${spoor.url}/v1/recipients/confirm`)).status).to.equal(422);
    });

    it('signs rule.matched webhooks and retries until the receiver accepts', async () => {
      const created = await api.post('/v1/webhooks', {
        ...scope,
        url: hooks.url,
        events: ['rule.matched', 'threshold.crossed'],
      });
      expect(created.status, created.text).to.equal(200);
      const secret: string = created.body.secret;
      expect(secret).to.match(/^whsec_/);
      const listed = await api.get('/v1/webhooks', scope);
      expect(listed.body.webhooks[0]).to.not.have.property('secret');
      hooks.plan.push(500, 503);
      expect(
        (
          await api.post('/v1/rules', {
            ...scope,
            rule_id: 'busy',
            logic: { '>=': [{ var: 'event_count' }, 4] },
            tags: ['busy'],
          })
        ).status,
      ).to.equal(200);
      await send('s-busy', ['pageview', 'click', 'click', 'click']);
      const arrivals = await waitFor(
        async () => hooks.received.filter((r) => JSON.parse(r.body).type === 'rule.matched'),
        (l) => l.length >= 3,
        30_000,
        'three attempts',
      );
      for (const r of arrivals) {
        expect(verifyWebhook(secret, r.headers as Record<string, string>, r.body), 'signature verifies').to.equal(true);
        expect(r.headers['webhook-id']).to.equal(arrivals[0]!.headers['webhook-id']);
      }
      expect(
        verifyWebhook(
          secret,
          arrivals[0]!.headers as Record<string, string>,
          arrivals[0]!.body.replace('busy', 'bust'),
        ),
      ).to.equal(false);
      const payload = JSON.parse(arrivals[0]!.body);
      expect(payload.data).to.include({ session_id: 's-busy', rule_id: 'busy', origin, project });
      const deliveries = await waitFor(
        () => api.get(`/v1/webhooks/${created.body.webhook_id}/deliveries`, scope),
        (r) => r.body?.deliveries?.[0]?.status === 'succeeded',
        10_000,
        'a succeeded delivery',
      );
      expect(deliveries.body.deliveries[0]).to.include({
        attempts: 3,
        response_status: 200,
        event_type: 'rule.matched',
      });
    });

    it('fires a threshold alert once, to its channels and as threshold.crossed', async () => {
      const alert = await api.post('/v1/alerts', {
        ...scope,
        name: 'busy sessions',
        condition: { type: 'tag_count', tag: 'busy', threshold: 0, window_ms: 3_600_000 },
      });
      expect(alert.status, alert.text).to.equal(200);
      const crossed = await waitFor(
        async () => hooks.received.filter((r) => JSON.parse(r.body).type === 'threshold.crossed'),
        (l) => l.length >= 1,
        20_000,
        'threshold.crossed',
      );
      expect(JSON.parse(crossed[0]!.body).data).to.include({ alert_id: alert.body.alert_id, value: 1 });
      await waitFor(
        async () => chat.received.some((r) => /busy sessions/.test(r.body)),
        Boolean,
        10_000,
        'the alert in chat',
      );
      await new Promise((r) => setTimeout(r, 1000));
      expect(hooks.received.filter((r) => JSON.parse(r.body).type === 'threshold.crossed')).to.have.length(1);
      expect((await api.get(`/v1/alerts/${alert.body.alert_id}`, scope)).body).to.include({ firing: true });
    });

    it('runs a schedule that missed runs during downtime once, for the latest interval', async () => {
      const made = await api.post('/v1/schedules', { ...scope, kind: 'aggregation', interval_ms: 60_000 });
      expect(made.status, made.text).to.equal(200);
      expect(made.body.next_run_at).to.be.greaterThan(Date.now());
      // As if the worker had been down for three and a half intervals.
      const p = (await spoor.store.projects.find(origin, project))!;
      const rec = (await spoor.store.records.get<ScheduleData>(
        RECORD_KINDS.schedule,
        p.project_id,
        made.body.schedule_id,
      ))!;
      const missed = Date.now() - 210_000;
      await spoor.store.records.put([
        { ...rec, data: { ...rec.data, next_run_at: missed }, updated_at: rec.updated_at + 1 },
      ]);
      const ran = await waitFor(
        () => api.get(`/v1/schedules/${made.body.schedule_id}`, scope),
        (r) => r.body?.last_job_id !== null,
        10_000,
        'a scheduled run',
      );
      expect(ran.body.last_run_at).to.equal(missed + 180_000);
      expect(ran.body.next_run_at).to.equal(missed + 240_000);
      await new Promise((r) => setTimeout(r, 1000));
      const jobs = (await api.get('/v1/jobs', { limit: 100 })).body.jobs.filter(
        (j: any) => j.request.schedule_id === made.body.schedule_id,
      );
      expect(jobs).to.have.length(1);
      expect(jobs[0].request).to.include({ window_start: missed + 120_000, window_end: missed + 180_000 });
    });

    it('answers 401 without a token, 404 to another account and 422 to bad bodies', async () => {
      const anon = new ApiClient(spoor.url);
      for (const path of [
        '/v1/channels',
        '/v1/webhooks',
        '/v1/schedules',
        '/v1/alerts',
        '/v1/transitions',
        '/v1/projects/overview',
      ]) {
        expect((await anon.get(path, scope)).status, path).to.equal(401);
        expect((await other.get(path, scope)).status, path).to.equal(404);
      }
      const hook = (await api.get('/v1/webhooks', scope)).body.webhooks[0];
      expect((await other.get(`/v1/webhooks/${hook.webhook_id}/deliveries`, scope)).status).to.equal(404);
      expect((await other.delete(`/v1/webhooks/${hook.webhook_id}`, scope)).status).to.equal(404);
      const bad: Array<[string, object, string]> = [
        ['/v1/channels', { ...scope, name: 'x', kind: 'email' }, 'recipients'],
        ['/v1/channels', { ...scope, name: 'x', kind: 'discord' }, 'url'],
        ['/v1/webhooks', { ...scope, url: 'ftp://example.com/', events: ['rule.matched'] }, 'url'],
        ['/v1/webhooks', { ...scope, url: hooks.url, events: [] }, 'events'],
        ['/v1/schedules', { ...scope, kind: 'aggregation', interval_ms: 1000 }, 'interval_ms'],
        ['/v1/alerts', { ...scope, name: 'x', condition: { type: 'tag_count', tag: 'x' } }, 'condition'],
      ];
      for (const [path, body, field] of bad) {
        const res = await api.post(path, body);
        expect(res.status, `${path} ${JSON.stringify(body)}`).to.equal(422);
        expect(
          res.body.detail.some((d: any) => d.loc.includes(field)),
          JSON.stringify(res.body),
        ).to.equal(true);
      }
      const backwards = await api.post('/v1/trigger/aggregation', { ...scope, window_start: 2000, window_end: 1000 });
      expect(backwards.status).to.equal(422);
    });

    it('keeps a deleted webhook from receiving anything', async () => {
      const hook = (await api.get('/v1/webhooks', scope)).body.webhooks[0];
      expect((await api.delete(`/v1/webhooks/${hook.webhook_id}`, scope)).status).to.equal(200);
      expect((await api.get(`/v1/webhooks/${hook.webhook_id}`, scope)).status).to.equal(404);
      const before = hooks.received.length;
      await send('s-busy-2', ['pageview', 'click', 'click', 'click']);
      await waitFor(
        () => api.get('/v1/tags/busy', { ...scope, limit: 10 }),
        (r) => r.body?.sessions?.length === 2,
        20_000,
        'the second busy session',
      );
      await new Promise((r) => setTimeout(r, 1000));
      expect(hooks.received.length).to.equal(before);
    });

    it('disables an endpoint that answers 410 Gone, tells the channels, and enables it again on request', async () => {
      const gone = await startHttpReceiver();
      try {
        gone.plan.push(410);
        const made = await api.post('/v1/webhooks', { ...scope, url: gone.url, events: ['digest.created'] });
        expect(made.status, made.text).to.equal(200);
        expect((await runJob('aggregation', window)).status).to.equal('succeeded');
        const off = await waitFor(
          () => api.get(`/v1/webhooks/${made.body.webhook_id}`, scope),
          (r) => r.body?.enabled === false,
          10_000,
          'the webhook disabled',
        );
        expect(off.body.disabled_reason).to.match(/410/);
        expect(gone.received).to.have.length(1);
        await waitFor(
          async () => chat.received.some((r) => /Webhook disabled/.test(r.body)),
          Boolean,
          10_000,
          'the owner told in chat',
        );
        const deliveries = await api.get(`/v1/webhooks/${made.body.webhook_id}/deliveries`, scope);
        expect(deliveries.body.deliveries[0]).to.include({ status: 'failed', attempts: 1, response_status: 410 });
        const on = await api.post(`/v1/webhooks/${made.body.webhook_id}/enable`, scope);
        expect(on.status, on.text).to.equal(200);
        expect(on.body).to.include({ enabled: true, disabled_reason: null, failing_since: null });
        expect((await other.post(`/v1/webhooks/${made.body.webhook_id}/enable`, scope)).status).to.equal(404);
        expect((await runJob('aggregation', window)).status).to.equal('succeeded');
        await waitFor(
          async () => gone.received.length,
          (n) => n === 2,
          10_000,
          'a delivery to the enabled endpoint',
        );
      } finally {
        await gone.close();
      }
    });
  });
}

describe('Webhook targets that reach private networks are refused', function () {
  this.timeout(60_000);
  let spoor: Harness;
  let api: ApiClient;
  const scope = { origin: 'http://localhost:4200', project: 'ssrf/web' };

  before(async function () {
    spoor = (await startSpoor('embedded'))!;
    api = await signUp(spoor.url);
    expect((await api.post('/v1/users/projects', scope)).status).to.equal(200);
  });
  after(async () => spoor?.stop());

  const refused = [
    'http://127.0.0.1/',
    'http://127.1.2.3:8080/x',
    'http://10.0.0.1/',
    'http://172.16.0.1/',
    'http://172.31.255.255/',
    'http://192.168.1.1/',
    'http://169.254.169.254/latest/meta-data/',
    'http://0.0.0.0/',
    'http://[::1]/',
    'http://[::ffff:127.0.0.1]/',
    'http://[fc00::1]/',
    'http://[fd12:3456::1]/',
    'http://2130706433/',
    'http://0x7f000001/',
    'http://localhost:9/',
    // Issue 13: IPv6 forms that embed a private IPv4 address.
    'http://[::ffff:0:127.0.0.1]:1234/',
    'http://[2002:7f00:1::]/',
    'http://[2002:c0a8:101::1]/',
    'http://[64:ff9b:1::a00:1]/',
    // Issue 42: judged by the IANA special-purpose registries, ORCHID and ORCHIDv2 included.
    'http://[2001:10::1]/',
    'http://[2001:20::1]/',
    'http://[3fff::1]/',
    'http://192.0.2.1/',
  ];
  for (const url of refused) {
    it(`refuses ${url}`, async () => {
      for (const [path, body] of [
        ['/v1/webhooks', { ...scope, url, events: ['rule.matched'] }],
        ['/v1/channels', { ...scope, name: 'c', kind: 'slack', url }],
      ] as const) {
        const res = await api.post(path, body);
        expect(res.status, `${path}: ${res.text}`).to.equal(422);
        expect(res.body.detail[0].loc).to.deep.equal(['body', 'url']);
        // Never what a name resolved to: that would let a caller map internal DNS.
        expect(res.body.detail[0].msg)
          .to.contain('not a public address')
          .and.not.match(/127\.0\.0\.1|::1\b|resolves/);
      }
    });
  }

  it('accepts a public address', async () => {
    const res = await api.post('/v1/webhooks', {
      ...scope,
      url: 'https://93.184.216.34/hook',
      events: ['digest.created'],
    });
    expect(res.status, res.text).to.equal(200);
  });
});

describe("Schedules and alerts name only their own project's channels (issue 42)", function () {
  this.timeout(60_000);
  let spoor: Harness;
  let a: ApiClient;
  let b: ApiClient;
  const scopeA = { origin: 'http://localhost:4300', project: 'channels/a' };
  const scopeB = { origin: 'http://localhost:4301', project: 'channels/b' };
  // Loopback with nothing listening: nothing here is meant to send, and nothing could leave the host.
  const chatUrl = 'http://127.0.0.1:9/hook';

  before(async function () {
    spoor = (await startSpoor('embedded', { SPOOR_WEBHOOK_ALLOW_PRIVATE: '1' }))!;
    [a, b] = [await signUp(spoor.url), await signUp(spoor.url)];
    expect((await a.post('/v1/users/projects', scopeA)).status).to.equal(200);
    expect((await b.post('/v1/users/projects', scopeB)).status).to.equal(200);
  });
  after(async () => spoor?.stop());

  const channel = async (api: ApiClient, scope: object, name: string) => {
    const res = await api.post('/v1/channels', { ...scope, name, kind: 'slack', url: chatUrl });
    expect(res.status, res.text).to.equal(200);
    return res.body.channel_id as string;
  };
  const schedule = (channels: string[]) =>
    a.post('/v1/schedules', { ...scopeA, kind: 'notification', interval_ms: 3_600_000, enabled: false, channels });
  const alert = (channels: string[]) =>
    a.post('/v1/alerts', {
      ...scopeA,
      name: 'never',
      condition: { type: 'tag_count', tag: 'never-seen', threshold: 1_000_000, window_ms: 3_600_000 },
      channels,
    });

  it("refuses another account's channel id with the 404 of an unknown one, and stores nothing", async () => {
    const foreign = await channel(b, scopeB, "b's channel");
    const own = await channel(a, scopeA, "a's channel");
    for (const [what, create] of [
      ['schedule', schedule],
      ['alert', alert],
    ] as const) {
      const refused = await create([foreign]);
      expect(refused.status, `${what}: ${refused.text}`).to.equal(404);
      expect(refused.body.detail).to.equal(`Channel not found: ${foreign}`);
      const unknown = await create(['no-such-channel']);
      expect(unknown.status).to.equal(404);
      expect(unknown.body.detail).to.equal('Channel not found: no-such-channel');
      // One foreign id among own ones is enough to refuse the whole request.
      expect((await create([own, foreign])).status, what).to.equal(404);
    }
    expect((await a.get('/v1/schedules', scopeA)).body.schedules).to.have.length(0);
    expect((await a.get('/v1/alerts', scopeA)).body.alerts).to.have.length(0);
  });

  it("accepts the project's own channels, and no longer a deleted one", async () => {
    const own = await channel(a, scopeA, 'own');
    const made = [await schedule([own]), await alert([own])];
    for (const res of made) expect(res.status, res.text).to.equal(200);
    expect(made[0]!.body.channels).to.deep.equal([own]);
    expect(made[1]!.body.channels).to.deep.equal([own]);
    expect((await a.delete(`/v1/schedules/${made[0]!.body.schedule_id}`, scopeA)).status).to.equal(200);
    expect((await a.delete(`/v1/alerts/${made[1]!.body.alert_id}`, scopeA)).status).to.equal(200);
    expect((await a.delete(`/v1/channels/${own}`, scopeA)).status).to.equal(200);
    expect((await schedule([own])).status).to.equal(404);
    expect((await alert([own])).status).to.equal(404);
  });
});

describe('Email channels are capped so Spoor cannot relay spam (issue 13)', function () {
  this.timeout(60_000);
  let spoor: Harness;
  let api: ApiClient;
  const scope = { origin: 'http://localhost:4300', project: 'caps/web' };

  before(async () => {
    spoor = (await startSpoor('embedded', {
      SPOOR_MAX_CHANNELS: '2',
      SPOOR_MAX_RECIPIENTS_PER_CHANNEL: '3',
      SPOOR_MAX_RECIPIENTS_PER_PROJECT: '4',
    }))!;
    api = await signUp(spoor.url);
    expect((await api.post('/v1/users/projects', scope)).status).to.equal(200);
  });
  after(async () => spoor?.stop());

  it('refuses too many recipients on a channel, in a project, and too many channels, with 422', async () => {
    const addresses = (n: number, tag: string) => Array.from({ length: n }, (_, i) => `${tag}${i}@example.com`);
    const perChannel = await api.post('/v1/channels', {
      ...scope,
      name: 'big',
      kind: 'email',
      recipients: addresses(4, 'a'),
    });
    expect(perChannel.status).to.equal(422);
    expect(perChannel.body.detail[0]).to.deep.include({ loc: ['body', 'recipients'] });
    expect(
      (await api.post('/v1/channels', { ...scope, name: 'one', kind: 'email', recipients: addresses(3, 'b') })).status,
    ).to.equal(200);
    const perProject = await api.post('/v1/channels', {
      ...scope,
      name: 'two',
      kind: 'email',
      recipients: addresses(2, 'c'),
    });
    expect(perProject.status).to.equal(422);
    expect(perProject.body.detail[0].msg).to.match(/at most 4 addresses/);
    // The same addresses again do not count twice.
    expect(
      (
        await api.post('/v1/channels', {
          ...scope,
          name: 'again',
          kind: 'email',
          recipients: ['b0@example.com', 'c0@example.com'],
        })
      ).status,
    ).to.equal(200);
    const third = await api.post('/v1/channels', {
      ...scope,
      name: 'three',
      kind: 'discord',
      url: 'https://93.184.216.34/hook',
    });
    expect(third.status).to.equal(422);
    expect(third.body.detail[0].msg).to.match(/at most 2 notification channels/);
    expect((await api.get('/v1/channels', scope)).body.channels).to.have.length(2);
  });
});
