import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { loadConfig } from '@spoor/config';
import { serviceModules } from '@spoor/host';
import { createLogger } from '@spoor/service-log';
import { runServices } from '@spoor/runtime';
import { makeTempDir, requireEngine } from '@spoor/testkit';
import { ApiClient } from '../support/api-client.js';
import { DESKTOP_CHROME } from '../support/browser-visitor.js';
import { modeEnv } from '../support/engine-env.js';
import { post, registerProject, startSpoor, waitFor, type Harness } from '../support/spoor-harness.js';

// Issue 13, rate limits: each answers 429 with Retry-After and the documented body, and is
// counted in /metrics. Small limits through the environment keep the tests quick. Windows are
// fixed (a second, a minute, an hour), so tests that count requests send more than the limit
// allows in two windows: a request that happens to cross a window boundary cannot make them pass.

const ORIGIN = 'https://limits.example';
const event = (i: number) => ({
  project: 'limits/web',
  action: 'click',
  timestamp: Date.now(),
  event_id: `e-${randomUUID()}`,
  payload: { i },
});

function expect429(res: { status: number; body: any; headers: Headers }, what: string): void {
  expect(res.status, what).to.equal(429);
  expect(Number(res.headers.get('retry-after')), what).to.be.at.least(1);
  expect(res.body.detail, what).to.equal('Too many requests');
}

async function metric(url: string, counter: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const line = text
    .split('\n')
    .find((l) => l.startsWith('spoor_service_counter{') && l.includes(`counter="${counter}"`));
  return line ? Number(line.split(' ').pop()) : 0;
}

describe('Rate limits (issue 13)', function () {
  this.timeout(120_000);
  let spoor: Harness;

  before(async () => {
    spoor = (await startSpoor('embedded', {
      SPOOR_RATE_LOGIN_FAILURES: '3',
      SPOOR_RATE_SIGNUP_IP: '4',
      SPOOR_RATE_INGEST_IP: '50',
      SPOOR_RATE_INGEST_PROJECT: '30',
      SPOOR_RATE_TRIGGERS: '2',
      SPOOR_RATE_RULES_TEST: '2',
    }))!;
  });
  after(async () => spoor?.stop());

  it('backs off failed logins per account and address, twice as long each time, and a success resets it', async () => {
    const email = `victim-${randomUUID()}@example.com`;
    const api = new ApiClient(spoor.url);
    expect((await api.post('/v1/auth/signup', { email, password: 'the right password' })).status).to.equal(200);
    const login = (password: string) => post(`${spoor.url}/v1/auth/login`, { email, password });
    for (let i = 0; i < 4; i++) expect((await login('a wrong password')).status, `failure ${i + 1}`).to.equal(401);
    // The 4th failure is one past 3: blocked 1 s. Even the right password waits.
    const blocked = await login('the right password');
    expect429(blocked, 'while blocked');
    await new Promise((r) => setTimeout(r, Number(blocked.headers.get('retry-after')) * 1000 + 100));
    expect((await login('a wrong password')).status).to.equal(401); // 5th failure: blocked 2 s
    const longer = await login('the right password');
    expect429(longer, 'the second block');
    expect(Number(longer.headers.get('retry-after'))).to.equal(2);
    await new Promise((r) => setTimeout(r, 2_100));
    expect((await login('the right password')).status).to.equal(200);
    // Reset: three failures are allowed again before any wait.
    for (let i = 0; i < 3; i++) expect((await login('a wrong password')).status).to.equal(401);
    expect(await metric(spoor.url, 'rate_limited_login_account')).to.be.at.least(2);
  });

  it('backs off failed logins from one address across accounts', async () => {
    // Its own process: the test above spent failures of this same address.
    const fresh = (await startSpoor('embedded', { SPOOR_RATE_LOGIN_FAILURES: '3' }))!;
    const statuses: number[] = [];
    try {
      for (let i = 0; i < 14; i++)
        statuses.push(
          (
            await post(`${fresh.url}/v1/auth/login`, {
              email: `nobody-${i}-${randomUUID()}@example.com`,
              password: 'guess guess',
            })
          ).status,
        );
    } finally {
      await fresh.stop();
    }
    // 3 × 4 = 12 failures per address before its back-off; other accounts each time.
    expect(
      statuses.slice(0, 12).every((s) => s === 401),
      JSON.stringify(statuses),
    ).to.equal(true);
    expect(statuses.slice(12)).to.include(429);
  });

  it('locks out only the address that fails: the owner logs in from theirs (issue 42)', async () => {
    // Its own process, behind a "proxy": X-Forwarded-For gives each request its client address.
    const proxied = (await startSpoor('embedded', { SPOOR_RATE_LOGIN_FAILURES: '3', SPOOR_TRUST_PROXY: 'true' }))!;
    try {
      const email = `owner-${randomUUID()}@example.com`;
      const from = (ip: string, password: string) =>
        post(`${proxied.url}/v1/auth/login`, { email, password }, { 'x-forwarded-for': ip });
      expect((await post(`${proxied.url}/v1/auth/signup`, { email, password: 'the right password' })).status).to.equal(
        200,
      );
      for (let i = 0; i < 4; i++) expect((await from('203.0.113.7', 'a wrong password')).status).to.equal(401);
      expect429(await from('203.0.113.7', 'the right password'), 'the failing address');
      // Elsewhere, the owner with the right password: not locked out by someone else's failures.
      expect((await from('198.51.100.9', 'the right password')).status).to.equal(200);
      expect(await metric(proxied.url, 'rate_limited_login_account')).to.equal(1);
    } finally {
      await proxied.stop();
    }
  });

  it('limits signups per address', async () => {
    const answers = [];
    for (let i = 0; i < 9; i++)
      answers.push(
        await post(`${spoor.url}/v1/auth/signup`, {
          email: `s-${i}-${randomUUID()}@example.com`,
          password: 'a long password',
        }),
      );
    const refused = answers.filter((a) => a.status === 429);
    expect(refused.length, JSON.stringify(answers.map((a) => a.status))).to.be.at.least(1);
    expect429(refused[0]!, 'signup');
  });

  it('limits ingest per client address and per project, and stores nothing it refused', async () => {
    const { project_id } = await registerProject(spoor.store, ORIGIN, 'limits/web');
    const headers = { origin: ORIGIN, 'user-agent': DESKTOP_CHROME };
    // 60 events at once pass the project's 30 and the address' 50: refused whole.
    const tooMany = await post(
      `${spoor.url}/v1/event/batch`,
      { events: Array.from({ length: 60 }, (_, i) => event(i)) },
      headers,
    );
    expect429(tooMany, 'a batch over the address limit');
    await new Promise((r) => setTimeout(r, 1_100)); // a new second: the refused points counted in the last one
    const overProject = await post(
      `${spoor.url}/v1/event/batch`,
      { events: Array.from({ length: 31 }, (_, i) => event(i)) },
      headers,
    );
    expect429(overProject, 'a batch over the project limit');
    await new Promise((r) => setTimeout(r, 1_100));
    const fine = await post(
      `${spoor.url}/v1/event/batch`,
      { events: Array.from({ length: 10 }, (_, i) => event(i)) },
      headers,
    );
    expect(fine.status).to.equal(200);
    await waitFor(
      () => spoor.store.events.countRaw(project_id),
      (n) => n >= 10,
      20_000,
      'the accepted batch',
    );
    await new Promise((r) => setTimeout(r, 300));
    expect(await spoor.store.events.countRaw(project_id)).to.equal(10);
    expect(await metric(spoor.url, 'rate_limited_ingest_ip')).to.be.at.least(1);
    expect(await metric(spoor.url, 'rate_limited_ingest_project')).to.be.at.least(1);
  });

  it('limits triggers and rule tests per account', async () => {
    const signup = await new ApiClient(spoor.url).post('/v1/auth/signup', {
      email: `t-${randomUUID()}@example.com`,
      password: 'a long password',
    });
    // The signup limit of this process may already be spent by the test above: use a fresh address if so.
    const token = signup.status === 200 ? signup.body.id_token : null;
    if (!token) return void expect(signup.status).to.equal(429);
    const api = new ApiClient(spoor.url, token);
    const scope = { origin: 'http://localhost:4888', project: 'limits/triggers' };
    await api.post('/v1/users/projects', scope);
    const triggers = [];
    for (let i = 0; i < 5; i++) triggers.push(await api.post('/v1/trigger/aggregation', scope));
    expect(
      triggers.filter((r) => r.status === 429).length,
      JSON.stringify(triggers.map((r) => r.status)),
    ).to.be.at.least(1);
    const tests = [];
    for (let i = 0; i < 5; i++) tests.push(await api.post('/v1/rules/test', { sessions: [], rules: '[]' }));
    expect(tests.filter((r) => r.status === 429).length, JSON.stringify(tests.map((r) => r.status))).to.be.at.least(1);
    expect(await metric(spoor.url, 'rate_limited_triggers_account')).to.be.at.least(1);
  });
});

describe('Rate limits are shared through Redis by every ingest copy (issue 13)', function () {
  this.timeout(120_000);

  it('refuses on one process what the other already spent', async function () {
    const env = await modeEnv('kafka', await makeTempDir('spoor-limits'));
    requireEngine(this, env ? 'ok' : null, 'engines for kafka mode');
    const config = (dir: string) => loadConfig({ ...env!, SPOOR_DATA_DIR: dir, SPOOR_RATE_INGEST_IP: '50' });
    const a = await runServices(config(await makeTempDir('a')), serviceModules, createLogger('a', 'error'));
    const b = await runServices(
      { ...config(await makeTempDir('b')), services: ['ingest'] },
      serviceModules,
      createLogger('b', 'error'),
    );
    try {
      await registerProject(a.adapters.store, ORIGIN, 'limits/web');
      const headers = { origin: ORIGIN, 'user-agent': DESKTOP_CHROME };
      const batch = () => ({ events: Array.from({ length: 40 }, (_, i) => event(i)) });
      // Each copy alone would take 40 of its 50; shared, the second 40 within the second is refused.
      // Three tries: a pair that straddles a second boundary is allowed, which three in a row never are.
      const second: number[] = [];
      for (let i = 0; i < 3 && !second.includes(429); i++) {
        await new Promise((r) => setTimeout(r, 1_100));
        await waitFor(
          () => post(`${a.http!.url}/v1/event/batch`, batch(), headers),
          (r) => r.status === 200,
          20_000,
          'the first copy to take a batch',
        );
        second.push((await post(`${b.http!.url}/v1/event/batch`, batch(), headers)).status);
      }
      expect(second).to.include(429);
    } finally {
      await b.stop();
      await a.stop();
    }
  });
});
