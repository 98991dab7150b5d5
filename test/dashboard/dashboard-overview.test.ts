// The Overview on the stats API in Chromium (issue 44): any range without a job, a panel row
// filters the whole page (a chip, the URL, a reload reproduces it), the comparison with the
// previous period, a goal's conversions, custom dates, and "visitors now". Every number the page
// shows is checked against what POST /v1/stats/query answers for the same question.
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { signUp, type ApiClient } from '../support/api-client.js';
import { postAsBrowser, waitFor } from '../support/spoor-harness.js';
import { ARTIFACTS, see } from './dashboard-browser.js';
import { startDashboardRig, type DashboardRig } from './dashboard-rig.js';

// Embedded only: the stats query's engines are tested on both in test/e2e/stats-query.test.ts and
// the store's contract tests; what is checked here is what the page does with its answers.
const MODE = 'embedded';
const DAY = 86_400_000;
const PROJECT = 'site/web';
const PASSWORD = 'correct horse battery';

/** The value of the figure labelled exactly `label`. */
const figure = (page: Page, label: string) =>
  page.locator('.figure').filter({ has: page.locator('dt', { hasText: new RegExp(`^${label}$`) }) });
const value = async (page: Page, label: string) => (await figure(page, label).locator('dd.value').textContent()) ?? '';
/** Waits until the figure labelled `label` reads `expected` (a navigation redraws the page once all its answers came). */
const shows = (page: Page, label: string, expected: string) =>
  figure(page, label)
    .locator('dd.value', { hasText: new RegExp(`^${expected.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`) })
    .waitFor({ timeout: 15_000 });
const delta = async (page: Page, label: string) =>
  (await figure(page, label).locator('.change .delta').textContent()) ?? '';
const rows = (page: Page, panel: string) =>
  page.getByRole('region', { name: panel }).locator('.name').allTextContents();

/**
 * Three sessions this week (one from news.example that signs up, one from search.example, one
 * direct bounce) and two eight days ago (one from news.example), one visitor (the same browser).
 */
async function seed(spoorUrl: string, origin: string): Promise<void> {
  const now = Date.now();
  const ev = (session_id: string, action: string, at: number, path: string, referrer?: string) => ({
    project: PROJECT,
    origin,
    session_id,
    action,
    timestamp: at,
    url: `${origin}${path}`,
    payload: {},
    ...(referrer ? { referrer } : {}),
  });
  const before = now - 8 * DAY;
  const events = [
    ev('now-news', 'pageview', now - 120_000, '/', 'https://news.example/today'),
    ev('now-news', 'pageview', now - 110_000, '/pricing', 'https://news.example/today'),
    ev('now-news', 'signup', now - 100_000, '/pricing'),
    ev('now-search', 'pageview', now - 90_000, '/', 'https://search.example/?q=spoor'),
    ev('now-search', 'pageview', now - 80_000, '/docs'),
    ev('now-direct', 'pageview', now - 70_000, '/'),
    ev('then-news', 'pageview', before, '/', 'https://news.example/older'),
    ev('then-docs', 'pageview', before + 60_000, '/docs'),
  ];
  const res = await postAsBrowser(spoorUrl, origin, events);
  expect(res.status, JSON.stringify(res.body)).to.equal(200);
}

describe('Dashboard: the Overview on the stats API', function () {
  this.timeout(240_000);
  let rig: DashboardRig;
  let page: Page;
  let api: ApiClient;
  let origin: string;
  let base: string;

  /** What the API answers for the page's question: the figures of a range, filtered. */
  const stats = async (body: Record<string, unknown>) => {
    const res = await api.post('/v1/stats/query', { origin, project: PROJECT, ...body });
    expect(res.status, res.text).to.equal(200);
    return res.body as { results: Array<{ dimensions: string[]; metrics: number[]; comparison: any }> };
  };

  before(async function () {
    rig = await startDashboardRig(this, MODE);
    page = rig.page;
    base = rig.spoor.url;
    origin = `http://localhost:${new URL(base).port}`;
    const email = `u${Math.random().toString(36).slice(2)}@example.com`;
    api = await signUp(base, email);
    expect((await api.post('/v1/users/projects', { origin, project: PROJECT })).status).to.equal(200);
    await seed(base, origin);
    await waitFor(
      () => api.get('/v1/sessions', { origin, project: PROJECT }),
      (r) => r.body?.sessions?.length === 5,
      60_000,
      'five sessions',
    );
    await page.goto(`${base}/`);
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: `Overview of ${PROJECT}` }).waitFor();
  });
  after(async () => rig?.stop());

  it('shows any range at once, without a job: figures, charts, panels and visitors now', async () => {
    const asked: string[] = [];
    const note = (r: { url(): string }) => asked.push(new URL(r.url()).pathname);
    page.on('request', note);
    await page.goto(`${base}/overview?range=7d`);
    await page.getByRole('heading', { name: `Overview of ${PROJECT}` }).waitFor();
    page.off('request', note);
    const [all] = (await stats({ metrics: ['sessions', 'events', 'visitors'], date_range: '7d' })).results;
    expect(all!.metrics).to.deep.equal([3, 6, 1]);
    expect(await value(page, 'Sessions')).to.equal('3');
    expect(await value(page, 'Events')).to.equal('6');
    expect(await value(page, 'Unique visitors')).to.equal('1');
    expect(await value(page, 'Pageviews')).to.equal('5');
    expect(await value(page, 'Visitors now')).to.equal('1');
    expect(await rows(page, 'Referrers')).to.have.members(['news.example', 'search.example']);
    expect(await rows(page, 'Top pages')).to.have.members(['/', '/pricing', '/docs']);
    expect(await page.locator('.uplot canvas').count()).to.equal(2);
    expect(await page.getByRole('button', { name: 'Aggregate now' }).count(), 'Aggregate now is on Reports').to.equal(
      0,
    );
    expect(asked.filter((p) => p.startsWith('/v1/trigger') || p.startsWith('/v1/projects/overview'))).to.deep.equal([]);
    await rig.finish('overview-stats');
  });

  it('filters the whole page by a referrer row: a chip, the URL, the API’s filtered numbers; a reload keeps it', async () => {
    await page
      .getByRole('region', { name: 'Referrers' })
      .getByRole('button', { name: /news\.example/ })
      .click();
    await page.waitForURL(/[?&]f=referrer%2Cnews\.example/);
    const chip = page.getByRole('list', { name: 'Filters' }).getByRole('listitem');
    await chip.filter({ hasText: 'Referrer is news.example' }).waitFor();
    const filters = [{ dimension: 'referrer', op: 'is', values: ['news.example'] }];
    const [filtered] = (await stats({ metrics: ['sessions', 'events'], date_range: '7d', filters })).results;
    await shows(page, 'Sessions', String(filtered!.metrics[0]));
    expect(await value(page, 'Events')).to.equal(String(filtered!.metrics[1]));
    expect(filtered!.metrics).to.deep.equal([1, 3]);
    const pages = await stats({ metrics: ['visitors'], dimensions: ['page'], date_range: '7d', filters });
    expect(await rows(page, 'Top pages')).to.have.members(pages.results.map((r) => r.dimensions[0]));
    expect(await rows(page, 'Top pages')).to.have.members(['/', '/pricing']);
    expect(await rows(page, 'Referrers')).to.deep.equal(['news.example']);

    const url = page.url();
    await page.reload();
    await page.getByRole('heading', { name: `Overview of ${PROJECT}` }).waitFor();
    expect(page.url()).to.equal(url);
    await chip.filter({ hasText: 'Referrer is news.example' }).waitFor();
    expect(await value(page, 'Sessions')).to.equal('1');
    await rig.finish('overview-filtered');

    await page.getByRole('button', { name: 'Remove filter Referrer is news.example' }).click();
    await page.waitForURL((u) => !u.search.includes('f='));
    await shows(page, 'Sessions', '3');
    expect(await chip.count()).to.equal(0);
  });

  it('adds a filter from the keyboard: a row reached by focus and pressed with Enter', async () => {
    await page
      .getByRole('region', { name: 'Top pages' })
      .getByRole('button', { name: /\/docs/ })
      .focus();
    await page.keyboard.press('Enter');
    await page.waitForURL(/[?&]f=page%2C%2Fdocs/);
    await see(page, 'Page is /docs');
    await shows(page, 'Sessions', '1');
    await page.getByRole('button', { name: 'Remove filter Page is /docs' }).click();
    await page.waitForURL((u) => !u.search.includes('f='));
    await shows(page, 'Sessions', '3');
  });

  it('compares each figure with the previous period (▲/▼ %), a year before, or not at all', async () => {
    const [row] = (await stats({ metrics: ['sessions', 'events'], date_range: '7d', compare: 'previous_period' }))
      .results;
    expect(row!.comparison.metrics).to.deep.equal([2, 2]);
    expect(row!.comparison.change).to.deep.equal([0.5, 2]);
    expect(await delta(page, 'Sessions')).to.equal('▲ 50%');
    expect(await delta(page, 'Events')).to.equal('▲ 200%');
    expect(await figure(page, 'Sessions').locator('.change .sr-only').textContent()).to.equal(
      'up 50% from 2 in the previous period',
    );
    await page.getByLabel('Compare with').selectOption('year_over_year');
    await page.waitForURL(/compare=year_over_year/);
    await figure(page, 'Sessions').locator('.change .delta', { hasText: /^new$/ }).waitFor();
    await page.getByLabel('Compare with').selectOption('off');
    await page.waitForURL(/compare=off/);
    await page.locator('.figure .change').first().waitFor({ state: 'detached' });
    await page.getByLabel('Compare with').selectOption('previous_period');
    await page.waitForURL((u) => !u.search.includes('compare='));
    await figure(page, 'Sessions')
      .locator('.change .delta', { hasText: /^▲ 50%$/ })
      .waitFor();
  });

  it('counts a goal’s conversions and rate, in the figures and the panels', async () => {
    await page.getByLabel('Goal').selectOption('action:signup');
    await page.waitForURL(/goal=action%3Asignup/);
    await figure(page, 'Conversions').waitFor();
    const [row] = (
      await stats({
        metrics: ['conversions', 'conversion_rate'],
        date_range: '7d',
        goal: { action: 'signup' },
      })
    ).results;
    expect(row!.metrics[0]).to.equal(1);
    expect(await value(page, 'Conversions')).to.equal('1');
    expect(await value(page, 'Conversion rate')).to.equal(`${Math.round(row!.metrics[1]! * 1000) / 10}%`);
    expect(
      await page.getByRole('region', { name: 'Referrers (visitors, conversions)' }).locator('.extra').allTextContents(),
    ).to.have.lengthOf(2);
    await page.setViewportSize({ width: 1280, height: 900 });
    // The docs' screenshot (docs/images/overview.png) is this file, copied there by hand: a test
    // run leaves the work tree as it found it.
    await mkdir(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: join(ARTIFACTS, 'overview-docs.png'), fullPage: true });
    await rig.finish('overview-goal');
    await page.getByLabel('Goal').selectOption('');
    await page.waitForURL((u) => !u.search.includes('goal='));
    await figure(page, 'Conversions').waitFor({ state: 'detached' });
  });

  it('shows custom dates from the date picker', async () => {
    const day = new Date(Date.now() - 8 * DAY).toISOString().slice(0, 10);
    await page.getByLabel('First day (UTC)').fill(day);
    await page.getByLabel('Last day (UTC)').fill(day);
    await page.getByRole('button', { name: 'Show these dates' }).click();
    await page.waitForURL(new RegExp(`range=custom&from=${day}&to=${day}`));
    const start = Date.parse(`${day}T00:00:00Z`);
    const [row] = (await stats({ metrics: ['sessions'], date_range: { start, end: start + DAY } })).results;
    expect(row!.metrics[0]).to.equal(2);
    await shows(page, 'Sessions', '2');
    expect(await page.getByLabel('Time range').inputValue()).to.equal('custom');
    await rig.finish('overview-custom');
  });
});
