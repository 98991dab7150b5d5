import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { signUp, type ApiClient } from '../support/api-client.js';
import { DESKTOP_CHROME } from '../support/browser-visitor.js';
import { post, waitFor, type Harness } from '../support/spoor-harness.js';
import { expectNoHorizontalScroll, go, openDashboard, see, type DashboardTab } from './dashboard-browser.js';
import { startDashboardRig, type DashboardRig } from './dashboard-rig.js';

const DAY = 86_400_000;
const HOUR = 3_600_000;
const PASSWORD = 'correct horse battery';
/** Retention counts visitors (IP and user agent): three browsers on one IP are three visitors. */
const browserUa = (version: number) => DESKTOP_CHROME.replace('Chrome/156', `Chrome/${version}`);
type Visit = [session: string, action: string, at: number, payload?: Record<string, unknown>];

/** The text of every row of a table (header cell and data cells), after its caption. */
const rowsOf = (page: Page, selector: string) =>
  page
    .locator(selector)
    .first()
    .evaluate((table: any) =>
      [...table.querySelectorAll('tbody tr')].map((tr: any) =>
        [...tr.children].map((c: any) => String(c.textContent).trim()),
      ),
    );

/**
 * Funnels and retention in the dashboard (issue 18), over hand-made visits whose answers are
 * known (the same sessions as test/cli/cli-analytics): build a three-step funnel, see the API's
 * 422 next to a bad rule step, save the funnel and open it again, and read the retention triangle.
 * Embedded mode only, as cli-analytics: the counting is the store's, checked on both engines by
 * libs/store/test/store-funnels.contract.test.ts, and the funnel and retention queries over HTTP
 * are checked in both modes by test/e2e/arrival-order.test.ts.
 */
describe('Dashboard in Chromium: funnels and retention: embedded', function () {
  this.timeout(240_000);
  let rig: DashboardRig;
  let spoor: Harness;
  let tab: DashboardTab;
  let page: Page;
  let api: ApiClient;
  let origin: string;
  const email = 'funnels@example.com';
  const project = 'site/shop';
  const retention = { origin: 'http://localhost:4590', project: 'site/retention' };
  const t0 = Date.now() - 3 * HOUR;
  const today = Math.floor(Date.now() / DAY) * DAY;

  async function send(scope: { origin: string; project: string }, visits: Visit[], ua = DESKTOP_CHROME) {
    const events = visits.map(([session_id, action, timestamp, payload]) => ({
      project: scope.project,
      session_id,
      action,
      timestamp,
      url: `${scope.origin}/`,
      payload: payload ?? {},
    }));
    expect(
      (await post(`${spoor.url}/v1/event/batch`, { events }, { origin: scope.origin, 'user-agent': ua })).status,
    ).to.equal(200);
  }

  /**
   * pageview → click{button: buy} → signup, strict, per session, 1 h: s1 goes through (10 s,
   * 30 s), s2 stops after the click (20 s), s3 clicks another button, s4 clicks before its
   * pageview, s5 signs up 2 h later. Entered 5, 3, 1; medians 20 s and 30 s.
   */
  async function sendVisits(): Promise<void> {
    await send({ origin, project }, [
      ['s1', 'pageview', t0],
      ['s1', 'click', t0 + 10_000, { button: 'buy' }],
      ['s1', 'signup', t0 + 40_000],
      ['s2', 'pageview', t0],
      ['s2', 'click', t0 + 20_000, { button: 'buy' }],
      ['s3', 'pageview', t0],
      ['s3', 'click', t0 + 5_000, { button: 'other' }],
      ['s4', 'click', t0, { button: 'buy' }],
      ['s4', 'pageview', t0 + 1_000],
      ['s5', 'pageview', t0],
      ['s5', 'click', t0 + 30_000, { button: 'buy' }],
      ['s5', 'signup', t0 + 2 * HOUR],
    ]);
    // Day cohorts: V1 and V2 first seen two days ago (V1 back yesterday and today), V3 first seen yesterday, back today.
    const noon = (day: number) => today + day * DAY + 12 * HOUR;
    const now = today + Math.floor((Date.now() - today) / 2);
    await send(
      retention,
      [
        ['v1-a', 'pageview', noon(-2)],
        ['v1-b', 'pageview', noon(-1)],
        ['v1-c', 'pageview', now],
      ],
      browserUa(150),
    );
    await send(retention, [['v2-a', 'pageview', noon(-2)]], browserUa(151));
    await send(
      retention,
      [
        ['v3-a', 'pageview', noon(-1)],
        ['v3-b', 'pageview', now],
      ],
      browserUa(152),
    );
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
  }

  before(async function () {
    rig = await startDashboardRig(this, 'embedded');
    ({ spoor, tab, page } = rig);
    origin = `http://localhost:${new URL(spoor.url).port}`;
    api = await signUp(spoor.url, email);
    expect((await api.post('/v1/users/projects', { origin, project })).status).to.equal(200);
    expect((await api.post('/v1/users/projects', retention)).status).to.equal(200);
    await sendVisits();
    await page.goto(`${spoor.url}/`);
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.locator('#project-picker').selectOption(`${origin} ${project}`);
    await page.getByRole('heading', { name: `Overview of ${project}` }).waitFor();
  });
  after(async () => rig?.stop());

  const step = (n: number) => page.getByRole('group', { name: `Step ${n}`, exact: true });
  const expectKnownCounts = async () =>
    expect(await rowsOf(page, 'table.funnel-table')).to.deep.equal([
      ['pageview', '5', '3', '100%', '100%', '20 s'],
      ['click', '3', '1', '60%', '60%', '30 s'],
      ['signup', '1', '—', '33.3%', '20%', '—'],
    ]);

  it('builds a three-step funnel from the action picker and shows the known counts', async () => {
    await go(page, 'Funnels');
    await step(1).getByLabel('Action', { exact: true }).selectOption('pageview');
    await step(2).getByLabel('Action', { exact: true }).selectOption('click');
    await step(2).getByLabel('Payload equals (JSON, optional)').fill('{"button": "buy"}');
    await page.getByRole('button', { name: 'Add step' }).click();
    await step(3).getByLabel('Action', { exact: true }).selectOption('signup');
    await page.getByLabel('Conversion window', { exact: true }).fill('1');
    await page.getByLabel('Conversion window unit').selectOption('hours');
    await page.getByRole('button', { name: 'Run' }).click();
    await see(page, 'Counted sessions (evaluated in SQL).');
    await expectKnownCounts();
    expect((await page.locator('.funnel-chart li').allTextContents()).map((t) => t.replace(/\s+/g, ' '))).to.deep.equal(
      ['1. pageview5 · 100% of step 1', '2. click3 · 60% of step 1', '3. signup1 · 20% of step 1 · 33.3% of step 2'],
    );
    await rig.finish('funnels');
  });

  it("shows the API's 422 under a bad rule step, then counts the rule once it is right", async () => {
    await step(3).getByLabel('Kind').selectOption('rule');
    await step(3).getByLabel('Rule (JSONLogic over one event)').fill('{"nope": [1]}');
    tab.expectFailure({ status: 422, path: '/v1/funnels/query' });
    await page.getByRole('button', { name: 'Run' }).click();
    await step(3).getByRole('alert').getByText("steps.2.logic: Unknown operator 'nope'").waitFor();
    await see(page, 'The funnel was refused.');
    await rig.finish('funnels-422');
    await step(3).getByLabel('Rule (JSONLogic over one event)').fill('{"==": [{"var": "action"}, "signup"]}');
    await step(3).getByLabel('Label (optional)').fill('signup');
    await page.getByRole('button', { name: 'Run' }).click();
    await see(page, 'Counted sessions (evaluated in SQL).');
    expect(await step(3).getByRole('alert').count()).to.equal(0);
    await expectKnownCounts();
  });

  it('saves the funnel, lists it, opens it again with its counts, and deletes it', async () => {
    await page.getByLabel('Name', { exact: true }).fill('Checkout');
    await page.getByRole('button', { name: 'Save funnel' }).click();
    await see(page, 'Saved Checkout.');
    const saved = page.getByRole('region', { name: 'Saved funnels' });
    await saved.getByText('Checkout').waitFor();
    const listed = (await api.get('/v1/funnels', { origin, project })).body.funnels;
    expect(
      listed.map((f: { name: string; conversion_window_ms: number }) => [f.name, f.conversion_window_ms]),
    ).to.deep.equal([['Checkout', HOUR]]);
    expect(listed[0].steps).to.deep.equal([
      { action: 'pageview' },
      { action: 'click', where: { button: 'buy' } },
      { name: 'signup', logic: { '==': [{ var: 'action' }, 'signup'] } },
    ]);
    await go(page, 'Overview');
    await go(page, 'Funnels');
    await page.getByRole('button', { name: 'Open Checkout' }).click();
    await see(page, 'Counted sessions (evaluated in SQL).');
    await expectKnownCounts();
    expect(await page.getByLabel('Conversion window unit').inputValue()).to.equal(String(HOUR));
    await rig.finish('funnels-saved');
    await page.getByRole('button', { name: 'Delete Checkout' }).click();
    await see(page, 'No saved funnel yet.');
    expect((await api.get('/v1/funnels', { origin, project })).body.funnels).to.deep.equal([]);
  });

  it('shows the retention triangle with the known cohort shares', async () => {
    await page.locator('#project-picker').selectOption(`${retention.origin} ${retention.project}`);
    await page.getByRole('heading', { level: 1 }).first().waitFor();
    await go(page, 'Retention');
    const date = (ms: number) => new Date(ms).toISOString().slice(0, 10);
    const rows = await rowsOf(page, 'table.retention');
    expect(rows.slice(-3)).to.deep.equal([
      [date(today - 2 * DAY), '2', '100%', '50%', '50%', '', '', '', ''],
      [date(today - DAY), '1', '100%', '100%', '', '', '', '', ''],
      [date(today), '0', '', '', '', '', '', '', ''],
    ]);
    expect(rows.map((r) => r[0])).to.have.length(7);
    await page.getByLabel('Cohorts by').selectOption('week');
    await see(page, /^Week of /);
    await rig.finish('retention');
  });

  it('fits a 375 px phone without sideways scrolling', async () => {
    const phone = await openDashboard(rig.browser, 'embedded', {
      viewport: { width: 375, height: 812 },
      from: tab.context,
    });
    try {
      await phone.page.goto(`${spoor.url}/funnels`);
      await phone.page.getByRole('button', { name: 'Run' }).click();
      await see(phone.page, /^Counted sessions/);
      await expectNoHorizontalScroll(phone.page);
      await phone.screenshot('funnels-375');
      await phone.page.goto(`${spoor.url}/retention`);
      await phone.page.locator('table.retention').waitFor();
      await expectNoHorizontalScroll(phone.page);
      await phone.screenshot('retention-375');
      expect(phone.errors).to.deep.equal([]);
    } finally {
      await phone.close();
    }
  });
});
