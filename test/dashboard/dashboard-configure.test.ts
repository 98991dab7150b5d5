import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { HEARTBEAT_KIND, type Heartbeat } from '@spoor/runtime';
import { waitFor, type Harness } from '../support/spoor-harness.js';
import { go, see, type DashboardTab } from './dashboard-browser.js';
import { startDashboardRig, type DashboardRig } from './dashboard-rig.js';
import { seedProject, type SeededProject } from './dashboard-events.js';

/**
 * The pages that configure and watch Spoor, for a user who signs in to a project that already
 * has visits: rules (a validation error from the API, a test on recent sessions, save, disable,
 * YAML), tags, transitions, settings (API key and webhook secrets shown once, the webhook's
 * delivery log, a channel, a schedule) and health. Embedded mode only: what is checked here is
 * what the pages show and send; the API's answers behind them are checked on both engines by
 * test/e2e/rules-flow.test.ts (rules, tests, backfills, tags), outbound-flow.test.ts (transitions,
 * webhooks, channels, schedules, alerts), auth-hardening.test.ts (API keys) and
 * health-status.test.ts (health), and the whole dashboard runs on Kafka in dashboard-walk.test.ts.
 */
describe('Dashboard in Chromium, rules to health: embedded', function () {
  this.timeout(240_000);
  let rig: DashboardRig;
  let spoor: Harness;
  let seeded: SeededProject;
  let tab: DashboardTab;
  let page: Page;

  before(async function () {
    // Loopback webhooks allowed; heartbeats and snapshots often, so health has figures and a
    // history; the account is an operator, who alone may see health (SPOOR_ADMIN_EMAILS).
    const operator = `ops-${Math.random().toString(36).slice(2)}@example.com`;
    rig = await startDashboardRig(this, 'embedded', {
      SPOOR_WEBHOOK_ALLOW_PRIVATE: '1',
      SPOOR_HEARTBEAT_MS: '500',
      SPOOR_HEALTH_SNAPSHOT_MS: '1000',
      SPOOR_ADMIN_EMAILS: operator,
    });
    ({ spoor, tab, page } = rig);
    seeded = await seedProject(spoor.url, 'site/web', operator);
  });
  after(async () => rig?.stop());

  const finish = (name: string) => rig.finish(name);

  it('signs in to an existing account and lands on the overview of its project', async () => {
    await page.goto(`${spoor.url}/rules`);
    await page.waitForURL('**/login');
    await page.getByLabel('Email').fill(seeded.email);
    await page.getByLabel('Password').fill('not the password');
    tab.expectFailure({ status: 401, path: '/v1/auth/login' });
    await page.getByRole('button', { name: 'Sign in' }).click();
    await see(page, 'Wrong email or password.');
    await page.getByLabel('Password').fill(seeded.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: `Overview of ${seeded.project}` }).waitFor();
    await finish('overview-empty');
  });

  it('rules: shows the API’s validation message, tests on recent sessions, saves, disables; checks YAML', async () => {
    await go(page, 'Rules');
    await see(page, 'No rule yet.');
    await page.getByLabel('Rule id').fill('reader');
    await page.getByLabel('Label', { exact: true }).fill('Reader');
    await page.getByLabel('Tags on match').fill('reader, engaged');
    await page.getByLabel('Logic (JSONLogic)').fill('{"no_such_operator": [1]}');
    tab.expectFailure({ status: 422, path: '/v1/rules' });
    await page.getByRole('button', { name: 'Save rule' }).click();
    const alert = page.locator('.rule-editor [role="alert"]');
    await alert.waitFor();
    expect(await alert.textContent())
      .to.match(/^logic/)
      .and.contain('no_such_operator');
    await page.getByLabel('Logic (JSONLogic)').fill('{">=": [{"var": "page_count"}, 2]}');
    await page.getByRole('button', { name: 'Test on recent sessions' }).click();
    await see(page, 'Matches 1 of 3 recent sessions.');
    await page.getByRole('button', { name: 'Save rule' }).click();
    await see(page, 'Saved reader (version 1).');
    const item = page.locator('.rule-item', { hasText: 'reader' });
    await item.getByText('enabled', { exact: true }).waitFor();
    await page.getByRole('button', { name: 'Disable rule reader' }).click();
    await item.getByText('disabled', { exact: true }).waitFor();
    // Editing a disabled rule keeps it disabled until its box is ticked again.
    await page.getByRole('button', { name: 'Edit rule reader' }).click();
    expect(await page.getByLabel('Enabled').isChecked()).to.equal(false);
    await page.getByLabel('Enabled').check();
    await page.getByRole('button', { name: 'Save rule' }).click();
    await see(page, 'Saved reader (version 3).');
    await item.getByText('enabled', { exact: true }).waitFor();
    await page.getByRole('button', { name: 'Disable rule reader' }).click();
    await item.getByText('disabled', { exact: true }).waitFor();
    await page.getByLabel('YAML rules document').fill('rules:\n  - rule_id: [broken');
    tab.expectFailure({ status: 422, path: '/v1/rules/test' });
    await page.getByRole('button', { name: 'Check and test YAML' }).click();
    await see(page, /YAML error at line \d+, column \d+/);
    await page
      .getByLabel('YAML rules document')
      .fill(
        'rules:\n  - rule_id: bouncer\n    label: Bounced\n    tags: [bounced]\n    logic: {"<": [{var: page_count}, 2]}\n',
      );
    await page.getByRole('button', { name: 'Check and test YAML' }).click();
    await see(page, 'The document is valid; it matches 2 recent sessions.');
    await page.getByRole('button', { name: 'Apply YAML' }).click();
    await see(page, 'Applied 1 rule.');
    await page.locator('.rule-item', { hasText: 'bouncer' }).getByText('enabled', { exact: true }).waitFor();
    await finish('rules');
  });

  it('sessions: filters by classification once the rules ran (a backfill)', async () => {
    const job = await seeded.api.post('/v1/trigger/backfill', { origin: seeded.origin, project: seeded.project });
    await waitFor(
      () => seeded.api.get(`/v1/jobs/${job.body.job_id}`),
      (r) => r.body?.status === 'succeeded',
      60_000,
      'the backfill',
    );
    await go(page, 'Sessions');
    await page.getByLabel('Classification').selectOption('bouncer');
    await page.getByRole('button', { name: 'Filter' }).click();
    await see(page, '2 shown');
    expect(await page.locator('.session-row .verdict').allTextContents()).to.deep.equal(['Bounced', 'Bounced']);
    await page.getByLabel('Classification').selectOption('(unclassified)');
    await page.getByRole('button', { name: 'Filter' }).click();
    await see(page, '1 shown');
    expect(await page.locator('.session-row').textContent()).to.contain('utm_source=newsletter');
    await finish('sessions-classified');
  });

  it('tags: lists tags and opens the sessions that carry one', async () => {
    await seeded.api.post('/v1/sessions/visit-reader/tags', {
      origin: seeded.origin,
      project: seeded.project,
      tag: 'vip',
    });
    await go(page, 'Tags');
    await page.getByRole('link', { name: 'vip' }).click();
    await see(page, 'Sessions tagged “vip”');
    await page.getByRole('link', { name: 'visit-reader' }).waitFor();
    await finish('tags');
  });

  it('transitions: computes the matrix and draws it as a heat map', async () => {
    tab.expectFailure({ status: 404, path: '/v1/transitions' });
    await go(page, 'Transitions');
    await see(page, 'No transition matrix yet: compute one.');
    await page.getByRole('button', { name: 'Compute for the last 24 hours' }).click();
    await see(page, 'Computed.', 60_000);
    const rows = await page.locator('.heatmap tbody th').allTextContents();
    expect(rows).to.include.members(['$start', 'session_start', 'pageview', 'click']);
    const cell = page
      .locator('.heatmap tbody tr', { has: page.locator('th', { hasText: /^session_start$/ }) })
      .locator('td[title^="session_start → pageview"]');
    expect(await cell.textContent()).to.equal('100%');
    await see(page, 'Most frequent steps');
    // One step of a kind reads "1 time", not "1 times" (issue 20).
    const steps = await page.locator('ol.flows li').allTextContents();
    expect(steps).to.include('session_start → pageview 1 time (100%)');
    expect(steps.filter((s) => /\b1 times\b/.test(s))).to.deep.equal([]);
    expect(
      steps.some((s) => /\b[2-9] times\b/.test(s)),
      steps.join('; '),
    ).to.equal(true);
    await finish('transitions');
  });

  it('settings: an API key and a webhook secret shown once, the delivery log, a channel, a schedule, an alert', async () => {
    await go(page, 'Settings');
    await page.getByLabel('Key name').fill('ci');
    await page.getByRole('button', { name: 'Create API key' }).click();
    const secret = page.getByLabel('API key ci', { exact: true });
    await secret.waitFor();
    const key = await secret.inputValue();
    expect(key.length).to.be.greaterThan(20);
    expect((await seeded.api.withToken(key).get('/v1/users/account')).status).to.equal(200);
    await page.getByLabel('Webhook URL', { exact: true }).fill('http://127.0.0.1:9/hook');
    await page.getByLabel('rule.matched', { exact: true }).uncheck();
    await page.getByLabel('threshold.crossed', { exact: true }).check();
    await page.getByRole('button', { name: 'Add webhook' }).click();
    expect(await page.getByLabel('Signing secret of the webhook to http://127.0.0.1:9/hook').inputValue()).to.match(
      /^whsec_/,
    );
    await page.getByRole('button', { name: 'Delivery log' }).click();
    await see(page, 'No delivery yet.');
    await page.getByLabel('Channel name').fill('team');
    await page.getByLabel('Kind', { exact: true }).selectOption('email');
    await page.getByLabel('Recipients or webhook URL').fill('team@acme.example');
    await page.getByRole('button', { name: 'Add channel' }).click();
    await see(page, 'Added channel team; each address gets a confirmation mail first.');
    await see(page, 'team@acme.example (awaiting confirmation)');
    await page.getByLabel('Job').selectOption('notification');
    await page.getByLabel('Interval').selectOption({ label: 'every day' });
    await page.getByRole('button', { name: 'Add schedule' }).click();
    await see(page, /^Scheduled notification every/);
    await page.getByLabel('Alert name').fill('rush');
    await page.getByLabel('When').selectOption('tag_count');
    await page.getByLabel('Tag, action or rule id').fill('bounced');
    await page.getByLabel('Threshold (tag count)').fill('5');
    await page.getByRole('button', { name: 'Add alert' }).click();
    await see(page, 'Added the alert “rush”.');
    await see(page, 'more than 5 sessions tagged “bounced” within 1 h');
    const stored = await seeded.api.get('/v1/alerts', { origin: seeded.origin, project: seeded.project });
    expect(stored.body.alerts.map((a: any) => a.condition)).to.deep.equal([
      { type: 'tag_count', tag: 'bounced', threshold: 5, window_ms: 3_600_000 },
    ]);
    await finish('settings');
    await page.reload();
    await page.getByRole('heading', { name: 'Settings' }).waitFor();
    await page.locator('.action-list li', { hasText: 'ci' }).first().waitFor();
    expect(await page.getByLabel('API key ci', { exact: true }).count(), 'the secret after a reload').to.equal(0);
    expect(await page.locator('input[readonly]').count()).to.equal(0);
    // Nor anywhere the page could read it from again: the key list never carries the secret.
    expect((await seeded.api.get('/v1/users/apikey')).text).not.to.contain(key);
    expect(await page.content()).not.to.contain(key);
    expect(await page.locator('.webhook-list li').count()).to.equal(1);
    expect(await page.locator('section[aria-label="Channels"] li').allTextContents()).to.have.length(1);
    expect(await page.locator('section[aria-label="Schedules"] li').allTextContents()).to.have.length(1);
  });

  it('health: current figures and the history; an instance gone silent counts as down, not as an instance', async () => {
    // An ingest instance that stopped ten minutes ago, as a crashed process leaves its last heartbeat.
    const at = Date.now() - 600_000;
    const gone: Heartbeat = {
      instance: 'gone',
      services: ['ingest'],
      started_at: at - 60_000,
      at,
      every_ms: 500,
      version: 'v0',
      stats: {},
      rates: {},
      consumes: [],
    };
    await spoor.store.records.put([
      {
        kind: HEARTBEAT_KIND,
        project_id: '',
        id: gone.instance,
        parent_id: '',
        sort_key: at,
        data: gone,
        updated_at: at,
        deleted: false,
      },
    ]);
    await go(page, 'Health');
    await see(page, /^Status: (ok|degraded)$/);
    for (const service of ['ingest', 'enricher', 'sessionizer', 'classifier', 'worker', 'gateway']) {
      const line = await page.locator('.action-list li', { hasText: service }).first().textContent();
      expect(line).to.contain('alive');
      expect(line).to.contain(service === 'ingest' ? '1 instance, 1 down' : '1 instance');
    }
    expect(await page.locator('.figure', { hasText: 'Events accepted' }).locator('dd').textContent()).to.equal('7');
    await see(page, 'History');
    await page.getByText('Ingest rate (events/s)').waitFor();
    expect(await page.locator('.uplot canvas').count()).to.equal(3);
    await finish('health');
  });
});
