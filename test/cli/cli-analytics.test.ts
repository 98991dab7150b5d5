// `spoor funnel` and `spoor retention` (issue 18) through the real binary, embedded mode: the
// counting itself is the store's, checked on both engines by
// libs/store/test/store-funnels.contract.test.ts; what is checked here is what the CLI sends and
// prints, against hand-made sessions with known answers and against the API's own answer.
import { expect } from 'chai';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { makeTempDir, requireEngine } from '@spoor/testkit';
import { ApiClient } from '../support/api-client.js';
import { DESKTOP_CHROME } from '../support/browser-visitor.js';
import { failed, ok } from '../support/cli-assertions.js';
import { cliUser, type CliUser } from '../support/cli-runner.js';
import { post, startSpoor, waitFor, type Harness } from '../support/spoor-harness.js';

const DAY = 86_400_000;
/** Retention counts visitors (IP and user agent): three browsers on one IP are three visitors. */
const browserUa = (version: number) => DESKTOP_CHROME.replace('Chrome/156', `Chrome/${version}`);

describe('spoor CLI: funnel and retention', function () {
  this.timeout(180_000);
  let spoor: Harness;
  let user: CliUser;
  let api: ApiClient;
  let files: string;
  const origin = 'http://localhost:4570';
  const project = 'cli/funnel';
  const retention = { origin: 'http://localhost:4571', project: 'cli/retention' };
  const t0 = Date.now() - 3 * 3_600_000;
  const window = ['--since', String(t0 - 60_000), '--until', String(t0 + 3 * 3_600_000)];
  const today = Math.floor(Date.now() / DAY) * DAY;
  const steps = ['--step', 'pageview', '--step', 'click:{"button":"buy"}', '--step', 'signup'];

  async function send(
    scope: { origin: string; project: string },
    sessionId: string,
    events: Array<[string, number, Record<string, unknown>?]>,
    ua = DESKTOP_CHROME,
  ) {
    const body = events.map(([action, at, payload]) => ({
      project: scope.project,
      action,
      timestamp: at,
      session_id: sessionId,
      url: `${scope.origin}/`,
      payload: payload ?? {},
    }));
    expect(
      (await post(`${spoor.url}/v1/event/batch`, { events: body }, { origin: scope.origin, 'user-agent': ua })).status,
    ).to.equal(200);
  }

  /**
   * Strict order, per session, 1 h conversion window: pageview → click{button: buy} → signup.
   * s1 goes through in 10 s and 30 s; s2 stops after the click (20 s); s3 clicks another button;
   * s4 clicks before its pageview (not in strict order); s5 signs up two hours later (past the
   * window). Entered 5, 3, 1; medians 20 s (10, 20, 30) and 30 s.
   */
  async function sendFunnelSessions(): Promise<void> {
    const scope = { origin, project };
    await send(scope, 's1', [
      ['pageview', t0],
      ['click', t0 + 10_000, { button: 'buy' }],
      ['signup', t0 + 40_000],
    ]);
    await send(scope, 's2', [
      ['pageview', t0],
      ['click', t0 + 20_000, { button: 'buy' }],
    ]);
    await send(scope, 's3', [
      ['pageview', t0],
      ['click', t0 + 5_000, { button: 'other' }],
    ]);
    await send(scope, 's4', [
      ['click', t0, { button: 'buy' }],
      ['pageview', t0 + 1_000],
    ]);
    await send(scope, 's5', [
      ['pageview', t0],
      ['click', t0 + 30_000, { button: 'buy' }],
      ['signup', t0 + 2 * 3_600_000],
    ]);
  }

  /** Day cohorts: V1 and V2 first seen two days ago (V1 back yesterday and today), V3 first seen yesterday and back today. */
  async function sendRetentionVisits(): Promise<void> {
    const noon = (day: number) => today + day * DAY + 12 * 3_600_000;
    const now = today + Math.floor((Date.now() - today) / 2);
    await send(retention, 'v1-a', [['pageview', noon(-2)]], browserUa(150));
    await send(retention, 'v1-b', [['pageview', noon(-1)]], browserUa(150));
    await send(retention, 'v1-c', [['pageview', now]], browserUa(150));
    await send(retention, 'v2-a', [['pageview', noon(-2)]], browserUa(151));
    await send(retention, 'v3-a', [['pageview', noon(-1)]], browserUa(152));
    await send(retention, 'v3-b', [['pageview', now]], browserUa(152));
  }

  before(async function () {
    const started = await startSpoor('embedded');
    requireEngine(this, started ? 'ok' : null, 'embedded mode');
    spoor = started!;
    user = await cliUser(spoor.url);
    files = await makeTempDir('cli-analytics');
    expect(
      (await user.run(['signup', 'funnels@example.com'], { env: { SPOOR_PASSWORD: 'long enough pw' } })).code,
    ).to.equal(0);
    expect((await user.run(['projects', 'add', origin, project])).code).to.equal(0);
    expect((await user.run(['projects', 'add', retention.origin, retention.project])).code).to.equal(0);
    expect((await user.run(['use', origin, project])).code).to.equal(0);
    api = new ApiClient(spoor.url, JSON.parse(await readFile(join(user.configDir, 'auth.json'), 'utf8')).token);
    await sendFunnelSessions();
    await sendRetentionVisits();
    await waitFor(
      () => api.get('/v1/sessions', { origin, project, limit: 10 }),
      (r) => r.body?.sessions?.length === 5,
      60_000,
      'five sessions',
    );
    await waitFor(
      () => api.get('/v1/sessions', { ...retention, limit: 10, window_start: today - 3 * DAY }),
      (r) => r.body?.sessions?.length === 6,
      60_000,
      'six retention sessions',
    );
  });
  after(async () => spoor?.stop());

  it("runs a funnel of actions with a payload condition: the known counts, and the API's answer", async () => {
    const printed = ok(await user.run(['funnel', ...steps, '--conversion-window', '1h', ...window]));
    expect(printed.steps.map((s: { entered: number }) => s.entered)).to.deep.equal([5, 3, 1]);
    expect(printed.steps.map((s: { conversion_from_first: number }) => s.conversion_from_first)).to.deep.equal([
      1, 0.6, 0.2,
    ]);
    expect(printed.steps.map((s: { median_ms_to_next: number | null }) => s.median_ms_to_next)).to.deep.equal([
      20_000,
      30_000,
      null,
    ]);
    const body = {
      origin,
      project,
      window_start: t0 - 60_000,
      window_end: t0 + 3 * 3_600_000,
      conversion_window_ms: 3_600_000,
      steps: [{ action: 'pageview' }, { action: 'click', where: { button: 'buy' } }, { action: 'signup' }],
    };
    expect(printed).to.deep.equal((await api.post('/v1/funnels/query', body)).body);
    // A day's window lets s5's late signup count.
    const dayLong = ok(await user.run(['funnel', ...steps, ...window]));
    expect(dayLong.steps.map((s: { entered: number }) => s.entered)).to.deep.equal([5, 3, 2]);
  });

  it('passes any order, visitors, a breakdown and rule steps through as the API takes them', async () => {
    const rule = '{"and":[{"==":[{"var":"action"},"click"]},{"in":["bu",{"var":"payload.button"}]}]}';
    const args = [
      'funnel',
      '--step',
      'pageview',
      '--step',
      rule,
      '--order',
      'any',
      '--unit',
      'visitor',
      '--breakdown',
      'browser',
      '--conversion-window',
      '2h',
      ...window,
    ];
    const printed = ok(await user.run(args));
    const body = {
      origin,
      project,
      window_start: t0 - 60_000,
      window_end: t0 + 3 * 3_600_000,
      steps: [{ action: 'pageview' }, { logic: JSON.parse(rule) }],
      order: 'any',
      unit: 'visitor',
      breakdown: 'browser',
      conversion_window_ms: 7_200_000,
    };
    expect(printed).to.deep.equal((await api.post('/v1/funnels/query', body)).body);
    // One browser on one IP: every session is one visitor, who clicked "buy".
    expect(printed).to.include({ unit: 'visitor', order: 'any', evaluated_in: 'typescript' });
    expect(printed.steps.map((s: { entered: number }) => s.entered)).to.deep.equal([1, 1]);
    expect(printed.breakdown.groups.map((g: { value: string }) => g.value)).to.deep.equal(['Chrome']);
    // The same funnel from a file (YAML), with its options there.
    const file = join(files, 'funnel.yaml');
    await writeFile(
      file,
      `order: any\nunit: visitor\nbreakdown: browser\nconversion_window_ms: 7200000\nsteps:\n  - action: pageview\n  - logic: ${rule}\n`,
    );
    expect(ok(await user.run(['funnel', '--steps-file', file, ...window]))).to.deep.equal(printed);
  });

  it('prints the funnel as a table on a terminal', async () => {
    const run = await user.tty(['funnel', ...steps, '--conversion-window', '1h', ...window]);
    expect(run.code, run.stdout).to.equal(0);
    const lines = run.stdout
      .replace(/\r/g, '')
      .split('\n')
      .map((l) => l.replace(/\s+/g, ' ').trim());
    expect(lines[0]).to.match(/^sessions, in order, within 1h of the first step; .* \(evaluated in sql\)$/);
    expect(lines).to.include('# STEP ENTERED CONVERTED FROM PREVIOUS FROM FIRST MEDIAN TO NEXT');
    expect(lines).to.include('1 pageview 5 3 100% 100% 20s');
    expect(lines).to.include('2 click 3 1 60% 60% 30s');
    expect(lines).to.include('3 signup 1 - 33.3% 20% -');
  });

  it("shows the API's 422 per step, and usage errors for bad steps", async () => {
    const stderr = failed(await user.run(['funnel', '--step', 'pageview', '--step', '{"nope":[1]}', ...window]), 1);
    expect(stderr).to.match(/^error: body\.steps\.1\.logic.*: .+/m);
    expect(failed(await user.run(['funnel', '--step', 'pageview']), 2)).to.contain('at least two steps');
    expect(failed(await user.run(['funnel', '--step', 'pageview', '--step', 'click:{"button":']), 2)).to.contain(
      'is not JSON',
    );
    expect(failed(await user.run(['funnel', '--step', 'a', '--step', 'b', '--unit', 'person']), 2)).to.contain(
      "argument 'person' is invalid",
    );
    expect(
      failed(await user.run(['funnel', '--step', 'a', '--step', 'b', '--steps-file', join(files, 'none.yaml')]), 2),
    ).to.contain('not both');
  });

  it("shows the API's 422 for a window over 92 days when --until is left out (issue 43)", async () => {
    expect(failed(await user.run(['funnel', ...steps, '--since', '200d']), 1)).to.match(
      /^error: body\.window_start.*: The window spans at most 92 days/m,
    );
    const saved = ok(await user.run(['funnel', 'save', 'Too long', ...steps]));
    expect(failed(await user.run(['funnel', 'result', saved.funnel_id, '--since', '200d']), 1)).to.match(
      /^error: query\.window_start.*: The window spans at most 92 days/m,
    );
    ok(await user.run(['funnel', 'delete', saved.funnel_id]));
  });

  it('saves, lists, shows, runs and deletes a funnel', async () => {
    const saved = ok(await user.run(['funnel', 'save', 'Checkout', ...steps, '--conversion-window', '1h']));
    expect(saved).to.include({
      name: 'Checkout',
      conversion_window_ms: 3_600_000,
      unit: 'session',
      order: 'strict',
      breakdown: null,
    });
    expect(ok(await user.run(['funnel', 'list'])).funnels.map((f: { funnel_id: string }) => f.funnel_id)).to.deep.equal(
      [saved.funnel_id],
    );
    expect(ok(await user.run(['funnel', 'show', saved.funnel_id])).steps).to.deep.equal([
      { action: 'pageview' },
      { action: 'click', where: { button: 'buy' } },
      { action: 'signup' },
    ]);
    const result = ok(await user.run(['funnel', 'result', saved.funnel_id, ...window]));
    expect(result.steps.map((s: { entered: number }) => s.entered)).to.deep.equal([5, 3, 1]);
    const table = await user.tty(['funnel', 'list']);
    expect(table.stdout).to.match(/Checkout\s+pageview > click > signup\s+session\s+strict\s+1h\s/);
    expect(ok(await user.run(['funnel', 'delete', saved.funnel_id]))).to.include({ funnel_id: saved.funnel_id });
    expect(failed(await user.run(['funnel', 'show', saved.funnel_id]), 1).trim()).to.equal('error: Funnel not found');
  });

  it("prints the retention triangle by day: the known cohort shares, the API's answer", async () => {
    const args = [
      'retention',
      '--origin',
      retention.origin,
      '--project',
      retention.project,
      '--period',
      'day',
      '--since',
      String(today - 2 * DAY),
      '--until',
      String(today + DAY),
    ];
    const printed = ok(await user.run(args));
    expect(printed.cohorts).to.deep.equal([
      { start: today - 2 * DAY, size: 2, returning: [2, 1, 1], shares: [1, 0.5, 0.5] },
      { start: today - DAY, size: 1, returning: [1, 1], shares: [1, 1] },
      { start: today, size: 0, returning: [0], shares: [0] },
    ]);
    expect(printed).to.deep.equal(
      (
        await api.get('/v1/retention', {
          ...retention,
          period: 'day',
          window_start: today - 2 * DAY,
          window_end: today + DAY,
        })
      ).body,
    );
    const run = await user.tty(args);
    const lines = run.stdout
      .replace(/\r/g, '')
      .split('\n')
      .map((l) => l.replace(/\s+/g, ' ').trim());
    const date = (ms: number) => new Date(ms).toISOString().slice(0, 10);
    expect(lines).to.include('COHORT SIZE DAY 0 DAY 1 DAY 2');
    expect(lines).to.include(`${date(today - 2 * DAY)} 2 100% 50% 50%`);
    expect(lines).to.include(`${date(today - DAY)} 1 100% 100% -`);
    expect(lines).to.include(`${date(today)} 0 - - -`);
    expect(failed(await user.run(['retention', '--period', 'month']), 2)).to.contain("argument 'month' is invalid");
  });
});
