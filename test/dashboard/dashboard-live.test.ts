// The Live page in Chromium (issue 18): the seeded visits of the last minute show at once, events
// posted as a browser while the page is open appear within 5 seconds, a dropped stream is
// reconnected after the server's retry, and leaving the page ends its stream (the gateway's
// live_viewers falls back to 0).
import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { liveComputations } from '../support/live-stream-reader.js';
import { postAsBrowser, waitFor } from '../support/spoor-harness.js';
import { go, see } from './dashboard-browser.js';
import { startDashboardRig, type DashboardRig } from './dashboard-rig.js';
import { seedProject, type SeededProject } from './dashboard-events.js';

const MODE = 'embedded';

/** The figure under `label` reads `value`, within `timeout`. */
const figure = (page: Page, label: string, value: string, timeout: number) =>
  page
    .locator('.figure')
    .filter({ hasText: label })
    .locator('dd')
    .filter({ hasText: new RegExp(`^${value}$`) })
    .waitFor({ timeout });

async function liveViewers(spoorUrl: string): Promise<number> {
  const text = await (await fetch(new URL('/metrics', spoorUrl))).text();
  const line = text.split('\n').find((l) => l.includes('service="gateway"') && l.includes('counter="live_viewers"'));
  return line ? Number(line.split(' ').pop()) : 0;
}

describe('Dashboard: the Live page', function () {
  this.timeout(180_000);
  let rig: DashboardRig;
  let seeded: SeededProject;

  before(async function () {
    rig = await startDashboardRig(this, MODE);
    seeded = await seedProject(rig.spoor.url);
    const { page } = rig;
    await page.goto(`${rig.spoor.url}/`);
    await page.getByLabel('Email').fill(seeded.email);
    await page.getByLabel('Password').fill(seeded.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: `Overview of ${seeded.project}` }).waitFor();
  });
  after(async () => rig?.stop());

  it('shows the visitors of the last minutes, then new events within 5 seconds of their sending', async () => {
    const { page, spoor } = rig;
    await go(page, 'Live');
    await page.getByRole('heading', { name: 'Live', level: 1 }).waitFor();
    // The seeded reader and bouncer visited in the last minute; the three-day-old visit is not live.
    await figure(page, 'Visitors now', '2', 10_000);
    await see(page, '/pricing');
    const sent = Date.now();
    const events = [
      {
        project: seeded.project,
        action: 'pageview',
        timestamp: sent,
        session_id: 'live-newcomer',
        url: `${seeded.origin}/live-check`,
      },
      {
        project: seeded.project,
        action: 'live_probe',
        timestamp: sent,
        session_id: 'live-newcomer',
        url: `${seeded.origin}/live-check`,
      },
    ];
    expect((await postAsBrowser(spoor.url, seeded.origin, events)).status).to.equal(200);
    await figure(page, 'Visitors now', '3', 5000);
    await page.getByRole('region', { name: 'Pages being viewed' }).getByText('/live-check').waitFor({ timeout: 5000 });
    await page.getByRole('region', { name: 'Latest events' }).getByText('live_probe').waitFor({ timeout: 5000 });
    expect(Date.now() - sent).to.be.below(5000);
    const table = await page.getByRole('region', { name: 'Latest events' }).innerText();
    expect(table).to.contain('live-newcomer').and.contain('Chrome').and.not.contain('127.0.0.1');
    await see(page, /^Updated /);
    await rig.finish('live');
  });

  it('reconnects when the stream drops, and resumes', async () => {
    const { page, spoor } = rig;
    // The first stream after this ends after one (made-up) snapshot, as a restarting gateway's would.
    const fake = {
      origin: seeded.origin,
      project: seeded.project,
      at: Date.now(),
      window_ms: 300_000,
      interval_ms: 2000,
      visitors: 42,
      pages: [],
      events: [],
    };
    const isLive = (url: URL) => url.pathname === '/v1/live';
    await page.route(
      isLive,
      (route) =>
        route.fulfill({
          status: 200,
          contentType: 'text/event-stream',
          body: `retry: 1000\n\nevent: snapshot\nid: 1\ndata: ${JSON.stringify(fake)}\n\n`,
        }),
      { times: 1 },
    );
    await go(page, 'Overview');
    await waitFor(
      () => liveViewers(spoor.url),
      (n) => n === 0,
      5000,
      'the first stream to end',
    );
    await go(page, 'Live');
    await figure(page, 'Visitors now', '42', 5000);
    await see(page, /reconnecting in 1 s/, 5000);
    await figure(page, 'Visitors now', '3', 5000);
    await see(page, /^Updated /);
  });

  it('ends its stream when the page is left', async () => {
    const { page, spoor, tab } = rig;
    expect(await liveViewers(spoor.url)).to.equal(1);
    await go(page, 'Overview');
    await waitFor(
      () => liveViewers(spoor.url),
      (n) => n === 0,
      5000,
      'the Live page’s stream to end',
    );
    const computed = await liveComputations(spoor.url);
    await new Promise((r) => setTimeout(r, 2500));
    expect(await liveComputations(spoor.url)).to.equal(computed);
    // Leaving cancels the fetch, which Chromium reports as a failed request: that one is intended.
    const rest = tab.errors.filter((e) => !/request failed: GET \S+\/v1\/live\?\S* net::ERR_ABORTED/.test(e));
    expect(rest).to.deep.equal([]);
  });
});
