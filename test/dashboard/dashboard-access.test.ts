import { expect } from 'chai';
import type { Browser, Page } from 'playwright-core';
import type { Harness } from '../support/spoor-harness.js';
import {
  expectLabelled,
  expectNoHorizontalScroll,
  go,
  openDashboard,
  see,
  type DashboardTab,
} from './dashboard-browser.js';
import { startDashboardRig, type DashboardRig } from './dashboard-rig.js';
import { seedProject, type SeededProject } from './dashboard-events.js';

const MODE = 'embedded';
/** The element that has focus, described by its text or accessible name. */
const focused = (page: Page) =>
  page.evaluate(() => {
    const el = (globalThis as any).document.activeElement;
    return {
      text: String(el?.textContent ?? '').trim(),
      label: String(el?.getAttribute('aria-label') ?? ''),
      outline: String((globalThis as any).getComputedStyle(el).outlineStyle),
    };
  });

/**
 * How the dashboard is served and reached, beyond what each page shows: the gateway's answers
 * for the app and its assets, a 375 px phone, the keyboard, an expired token and sign-out. Only
 * the embedded mode: none of this depends on the engines (the page walks run in both).
 */
describe('Dashboard: serving, small screens, keyboard, sign-out', function () {
  this.timeout(180_000);
  let rig: DashboardRig;
  let browser: Browser;
  let spoor: Harness;
  let seeded: SeededProject;
  let tab: DashboardTab;
  let page: Page;

  before(async function () {
    // An operator list naming someone else: this account, the install's first, is then no operator (issue 45).
    rig = await startDashboardRig(this, MODE, { SPOOR_ADMIN_EMAILS: 'ops-elsewhere@example.org' });
    ({ browser, spoor, tab, page } = rig);
    seeded = await seedProject(spoor.url);
    await page.goto(`${spoor.url}/`);
    await page.getByLabel('Email').fill(seeded.email);
    await page.getByLabel('Password').fill(seeded.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: `Overview of ${seeded.project}` }).waitFor();
  });
  after(async () => rig?.stop());

  it('is served by the gateway: index.html not cached, hashed assets immutable, the API untouched', async () => {
    const root = await fetch(`${spoor.url}/`);
    expect(root.status).to.equal(200);
    expect(root.headers.get('content-type')).to.match(/^text\/html/);
    expect(root.headers.get('cache-control')).to.equal('no-cache');
    // Issue 13: no inline script can run, no site can frame it, no referrer leaves it. (Every walk
    // in Chromium fails on a console error, which is how a CSP violation would show.)
    for (const res of [root, await fetch(`${spoor.url}/sessions/x`, { headers: { accept: 'text/html' } })]) {
      const csp = res.headers.get('content-security-policy') ?? '';
      const script = /script-src ([^;]+)/.exec(csp)?.[1] ?? '';
      expect(script).to.equal("'self'");
      expect(csp).to.contain("frame-ancestors 'none'").and.contain("object-src 'none'");
      expect(res.headers.get('referrer-policy')).to.equal('no-referrer');
      expect(res.headers.get('x-content-type-options')).to.equal('nosniff');
    }
    const html = await root.text();
    expect(html, 'the build has no inline script').not.to.match(/<script(?![^>]*\bsrc=)[^>]*>/);
    const asset = /src="(\/assets\/[^"]+\.js)"/.exec(html)![1]!;
    const js = await fetch(`${spoor.url}${asset}`);
    expect(js.headers.get('cache-control')).to.equal('public, max-age=31536000, immutable');
    expect(js.headers.get('content-type')).to.match(/^text\/javascript/);
    const navigation = { accept: 'text/html,application/xhtml+xml' };
    expect(
      (await fetch(`${spoor.url}/sessions/some-id`, { headers: navigation })).headers.get('content-type'),
    ).to.match(/^text\/html/);
    for (const path of [
      '/v1/sessions',
      '/v1/nothing',
      '/openapi.json',
      '/healthz',
      '/.well-known/jwks.json',
      '/logger.js',
      '/assets/missing.js',
    ]) {
      const res = await fetch(`${spoor.url}${path}`, { headers: navigation });
      expect(res.headers.get('content-type') ?? '', path).not.to.match(/^text\/html/);
    }
    expect((await fetch(`${spoor.url}/nowhere`)).status, 'a non-browser GET still gets the JSON 404').to.equal(404);
    expect((await fetch(`${spoor.url}/`, { method: 'OPTIONS' })).status).to.equal(200);
  });

  it('fits a 375 px phone without sideways scrolling, on every page', async () => {
    const phone = await openDashboard(browser, MODE, { viewport: { width: 375, height: 812 }, from: tab.context });
    try {
      for (const [path, heading] of [
        ['/overview', 'Overview of'],
        ['/overview?range=7d&compare=year_over_year&f=referrer%2Cnews.example&goal=action%3Apageview', 'Overview of'],
        ['/reports', 'Reports of'],
        ['/sessions', 'Sessions'],
        ['/sessions/visit-reader', 'Session'],
        ['/actions', 'Actions'],
        ['/rules', 'Rules'],
        ['/transitions', 'Transitions'],
        ['/settings', 'Settings'],
        ['/audit', 'Audit'],
        ['/health', 'Health'],
        ['/projects', 'Projects'],
      ] as const) {
        if (path === '/transitions') phone.expectFailure({ status: 404, path: '/v1/transitions' });
        // This account is no operator: health answers 403, which the page explains.
        if (path === '/health')
          for (const p of ['/v1/status/health', '/v1/status/health/history'])
            phone.expectFailure({ status: 403, path: p });
        await phone.page.goto(`${spoor.url}${path}`);
        await phone.page.getByRole('heading', { level: 1, name: heading }).waitFor();
        if (path === '/health') {
          await phone.page.getByRole('status').filter({ hasText: 'only its operators may see it' }).waitFor();
          expect(await phone.page.getByRole('alert').count()).to.equal(0);
        }
        await phone.page.waitForTimeout(100);
        await expectNoHorizontalScroll(phone.page);
        await expectLabelled(phone.page);
        await phone.screenshot(`phone${path.replace(/\?.*/, '-filtered').replace(/\//g, '-')}`);
      }
      expect(phone.errors).to.deep.equal([]);
      expect(phone.pending(), 'declared failures that never came').to.deep.equal([]);
    } finally {
      await phone.close();
    }
  });

  it('is reachable by keyboard: skip link first, visible focus, a page’s button by Tab and Enter', async () => {
    await page.goto(`${spoor.url}/reports`);
    await page.getByRole('heading', { name: `Reports of ${seeded.project}` }).waitFor();
    await page.keyboard.press('Tab');
    expect((await focused(page)).text).to.equal('Skip to content');
    let reached = false;
    for (let i = 0; i < 30 && !reached; i++) {
      await page.keyboard.press('Tab');
      const f = await focused(page);
      expect(f.outline, `focus outline on ${f.text}`).not.to.equal('none');
      reached = f.text === 'Aggregate now';
    }
    expect(reached, 'Tab reaches “Aggregate now”').to.equal(true);
    await page.keyboard.press('Enter');
    await see(page, 'Aggregated.', 60_000);
    expect(tab.errors).to.deep.equal([]);
  });

  it('sends a user whose token is refused back to sign-in with a message', async () => {
    await page.evaluate(() =>
      (globalThis as any).localStorage.setItem(
        'spoor.token',
        JSON.stringify({ id_token: 'not-a-token', expires_at: Date.now() + 3_600_000, email: 'x@example.com' }),
      ),
    );
    tab.expectFailure({ status: 401, path: '/v1/users/projects' });
    await page.goto(`${spoor.url}/sessions`);
    await page.waitForURL('**/login?notice=*');
    await see(page, /^Please sign in again/);
    expect(await page.evaluate(() => (globalThis as any).localStorage.getItem('spoor.token'))).to.equal(null);
    await tab.screenshot('login-expired');
    expect(tab.errors).to.deep.equal([]);
  });

  it('signs out: the token is gone and the pages ask for sign-in again', async () => {
    await page.getByLabel('Email').fill(seeded.email);
    await page.getByLabel('Password').fill(seeded.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await go(page, 'Sessions');
    await page.getByRole('button', { name: 'Sign out' }).click();
    await see(page, 'You are signed out.');
    expect(await page.evaluate(() => (globalThis as any).localStorage.getItem('spoor.token'))).to.equal(null);
    await page.goto(`${spoor.url}/sessions`);
    await page.waitForURL('**/login');
    expect(tab.errors).to.deep.equal([]);
  });
});
