// Public share links in Chromium (issue 45, item 3): an owner makes one in Settings and copies it;
// a fresh browser with no account opens it and sees the Overview's figures, charts and panels —
// the numbers the stats API answers the owner — asked only through the link's public endpoints;
// a panel row filters within the shared page; a password-protected link asks for its password
// first (a wrong one says so); a revoked link says it is unknown or revoked.
import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { signUp, type ApiClient } from '../support/api-client.js';
import { postAsBrowser, waitFor } from '../support/spoor-harness.js';
import { openDashboard, see, type DashboardTab } from './dashboard-browser.js';
import { startDashboardRig, type DashboardRig } from './dashboard-rig.js';

// Embedded only: the share endpoints run on both engines in test/e2e/share-links.test.ts; what is
// checked here is the page.
const MODE = 'embedded';
const PROJECT = 'site/web';
const PASSWORD = 'correct horse battery';

const figure = (page: Page, label: string) =>
  page.locator('.figure').filter({ has: page.locator('dt', { hasText: new RegExp(`^${label}$`) }) });
const value = async (page: Page, label: string) => (await figure(page, label).locator('dd.value').textContent()) ?? '';
const rows = (page: Page, panel: string) =>
  page.getByRole('region', { name: panel }).locator('.name').allTextContents();

describe('Dashboard: public share links', function () {
  this.timeout(240_000);
  let rig: DashboardRig;
  let api: ApiClient;
  let origin: string;
  let base: string;
  const visitors: DashboardTab[] = [];

  /** A browser profile of its own: no token, no account. */
  async function stranger(): Promise<DashboardTab> {
    const tab = await openDashboard(rig.browser, MODE);
    visitors.push(tab);
    return tab;
  }

  before(async function () {
    rig = await startDashboardRig(this, MODE);
    base = rig.spoor.url;
    origin = `http://localhost:${new URL(base).port}`;
    const email = `u${Math.random().toString(36).slice(2)}@example.com`;
    api = await signUp(base, email);
    expect((await api.post('/v1/users/projects', { origin, project: PROJECT })).status).to.equal(200);
    const now = Date.now();
    const ev = (session_id: string, action: string, at: number, path: string, referrer?: string) => ({
      project: PROJECT,
      session_id,
      action,
      timestamp: at,
      url: `${origin}${path}`,
      ...(referrer ? { referrer } : {}),
    });
    const res = await postAsBrowser(base, origin, [
      ev('a', 'pageview', now - 120_000, '/', 'https://news.example/today'),
      ev('a', 'pageview', now - 110_000, '/pricing'),
      ev('b', 'pageview', now - 90_000, '/', 'https://search.example/?q=spoor'),
      ev('c', 'pageview', now - 70_000, '/docs'),
    ]);
    expect(res.status).to.equal(200);
    await waitFor(
      () => api.get('/v1/sessions', { origin, project: PROJECT }),
      (r) => r.body?.sessions?.length === 3,
      60_000,
      'three sessions',
    );
    const { page } = rig;
    await page.goto(`${base}/`);
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: `Overview of ${PROJECT}` }).waitFor();
  });
  after(async () => {
    for (const tab of visitors) await tab.close();
    await rig?.stop();
  });

  it('is made in Settings and opened without an account: the figures the stats API answers', async () => {
    const { page } = rig;
    await page.goto(`${base}/settings`);
    const section = page.getByRole('region', { name: 'Share links' });
    await section.getByText('No share link.').waitFor();
    await section.getByLabel('Label').fill('For the board');
    await section.getByRole('button', { name: 'Make a share link' }).click();
    const link = await section.getByRole('textbox', { name: /^Share link/ }).inputValue();
    expect(link).to.match(new RegExp(`^${base.replace(/\/$/, '')}/share/[A-Za-z0-9_-]{43}$`));
    await section.getByText('For the board', { exact: true }).waitFor();
    await rig.finish('settings-share-links');

    const tab = await stranger();
    const asked: string[] = [];
    tab.page.on('request', (r) => asked.push(new URL(r.url()).pathname));
    await tab.page.goto(`${link}?range=24h`);
    await tab.page.getByRole('heading', { name: `Overview of ${PROJECT}` }).waitFor();
    const answer = await api.post('/v1/stats/query', {
      origin,
      project: PROJECT,
      metrics: ['sessions', 'events', 'pageviews'],
      date_range: '24h',
    });
    expect(answer.body.results[0].metrics).to.deep.equal([3, 4, 4]);
    expect(await value(tab.page, 'Sessions')).to.equal('3');
    expect(await value(tab.page, 'Events')).to.equal('4');
    expect(await value(tab.page, 'Pageviews')).to.equal('4');
    expect(await rows(tab.page, 'Referrers')).to.have.members(['news.example', 'search.example']);
    expect(await tab.page.locator('.uplot canvas').count()).to.equal(2);
    const api_calls = asked.filter((p) => p.startsWith('/v1/'));
    expect(api_calls.length).to.be.greaterThan(0);
    expect(
      api_calls.every((p) => p.startsWith('/v1/shared/')),
      api_calls.join(', '),
    ).to.equal(true);
    expect(await tab.page.getByRole('navigation', { name: 'Pages' }).count()).to.equal(0);
    expect(await tab.page.locator('a[href^="/sessions"], a[href^="/settings"], a[href="/live"]').count()).to.equal(0);

    // A panel row filters the shared page, in its own URL.
    await tab.page
      .getByRole('region', { name: 'Referrers' })
      .getByRole('button', { name: /news\.example/ })
      .click();
    await tab.page.waitForURL(/\/share\/[^?]+\?.*f=referrer%2Cnews\.example/);
    await figure(tab.page, 'Sessions').locator('dd.value', { hasText: /^1$/ }).waitFor();
    await tab.screenshot('shared-overview');
    expect(tab.errors).to.deep.equal([]);
  });

  it('asks for the password first; a wrong one says so, the right one shows the overview', async () => {
    const made = await api.post('/v1/projects/shares', { origin, project: PROJECT, password: 'open sesame 1' });
    expect(made.status, made.text).to.equal(200);
    const tab = await stranger();
    await tab.page.goto(made.body.link as string);
    await tab.page.getByRole('heading', { name: `Overview of ${PROJECT}` }).waitFor();
    await tab.page.getByText('This shared overview is protected by a password.').waitFor();
    expect(await tab.page.locator('.figure').count()).to.equal(0);
    tab.expectFailure({ status: 401, path: `/v1/shared/${made.body.token as string}/unlock` });
    await tab.page.getByLabel('Password').fill('not the one');
    await tab.page.getByRole('button', { name: 'Show the overview' }).click();
    await see(tab.page, 'Wrong password for this share link');
    await tab.page.getByLabel('Password').fill('open sesame 1');
    await tab.page.getByRole('button', { name: 'Show the overview' }).click();
    await figure(tab.page, 'Sessions').waitFor();
    expect(await value(tab.page, 'Sessions')).to.equal('3');
    // A reload in the same tab keeps the grant.
    await tab.page.reload();
    await figure(tab.page, 'Sessions').waitFor();
    await tab.screenshot('shared-overview-password');
    expect(tab.errors).to.deep.equal([]);
    expect(tab.pending()).to.deep.equal([]);
  });

  it('says a revoked link is unknown or revoked', async () => {
    const { page } = rig;
    const made = await api.post('/v1/projects/shares', { origin, project: PROJECT, label: 'doomed' });
    await page.goto(`${base}/settings`);
    const section = page.getByRole('region', { name: 'Share links' });
    await section.getByRole('button', { name: 'Revoke share link doomed' }).click();
    await section.getByText(/Revoked the share link doomed/).waitFor();
    const tab = await stranger();
    tab.expectFailure({ status: 404, path: `/v1/shared/${made.body.token as string}` });
    await tab.page.goto(made.body.link as string);
    await see(tab.page, 'This share link is unknown or was revoked');
    expect(tab.errors).to.deep.equal([]);
    await rig.finish('settings-share-links-revoked');
  });
});
