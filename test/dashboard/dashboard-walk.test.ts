import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { ApiClient } from '../support/api-client.js';
import { MODES } from '../support/engine-env.js';
import { waitFor, type Harness } from '../support/spoor-harness.js';
import { go, see, type DashboardTab } from './dashboard-browser.js';
import { startDashboardRig, type DashboardRig } from './dashboard-rig.js';
import { postVisits } from './dashboard-events.js';

const EMAIL = 'owner@acme.example';
const PASSWORD = 'a long enough password';
const PROJECT = 'site/web';

const texts = (page: Page, selector: string) => page.locator(selector).allTextContents();
/** The figure's value (the Overview writes its change from the previous period in a second <dd>). */
const figure = (page: Page, label: string) =>
  page.locator('.figure', { hasText: label }).locator('dd').first().textContent();

/**
 * A new user's first visit, page by page, in real Chromium against the whole service: sign up,
 * register a project, events arrive, then every page shows what it should. Each test ends with
 * a screenshot, every input labelled, and no page error, console error or unexpected failed
 * answer. The steps share one browser profile and run in order.
 */
for (const mode of MODES) {
  describe(`Dashboard in Chromium, every page: ${mode}`, function () {
    this.timeout(240_000);
    let rig: DashboardRig;
    let spoor: Harness;
    let tab: DashboardTab;
    let page: Page;
    let origin: string;

    before(async function () {
      // The webhook below targets loopback, which the SSRF guard refuses unless allowed.
      rig = await startDashboardRig(this, mode, { SPOOR_WEBHOOK_ALLOW_PRIVATE: '1' });
      ({ spoor, tab, page } = rig);
      origin = `http://localhost:${new URL(spoor.url).port}`;
    });
    after(async () => rig?.stop());

    const finish = (name: string) => rig.finish(name);

    it('sends a new visitor to sign-in, and signs up', async () => {
      await page.goto(`${spoor.url}/`);
      await page.waitForURL('**/login');
      await tab.screenshot('login');
      await page.getByLabel('Email').fill(EMAIL);
      await page.getByLabel('Password').fill(PASSWORD);
      await page.getByRole('button', { name: 'Create account' }).click();
      await page.getByRole('heading', { name: 'Projects' }).waitFor();
      expect(new URL(page.url()).pathname).to.equal('/projects');
      await see(page, 'No project yet: register your site below.');
      await finish('signed-up');
    });

    it('registers a localhost project (verified) and an https one with its DNS record and a verify button', async () => {
      await page.getByLabel('Origin of the site').fill(origin);
      await page.getByLabel('Project identifier').fill(PROJECT);
      await page.getByRole('button', { name: 'Register' }).click();
      await see(page, 'Domain verified: raw events are readable.');
      expect(await page.locator('.snippet code').textContent()).to.equal(
        `<script defer src="${spoor.url}/logger.js" data-project="${PROJECT}"></script>`,
      );
      await page.getByLabel('Origin of the site').fill('https://example.test');
      await page.getByLabel('Project identifier').fill('example/web');
      await page.getByRole('button', { name: 'Register' }).click();
      await see(page, '_spoor.example.test');
      await see(page, /^spoor-verify=/);
      await page.getByRole('button', { name: 'Verify example.test' }).click();
      await see(page, /^Not verified: no TXT record at _spoor\.example\.test/);
      await finish('projects');
      await page.locator('#project-picker').selectOption({ label: `${PROJECT} (${origin})` });
      await page.getByRole('navigation', { name: 'Pages' }).getByRole('link', { name: 'Projects' }).click();
      await page.getByRole('listitem').filter({ hasText: 'example/web' }).getByText('not verified').waitFor();
    });

    it('shows the overview at once from the stats API, and stores one from Reports: figures, charts, top lists', async () => {
      await postVisits(spoor.url, origin, PROJECT);
      const token = await page.evaluate(
        () => JSON.parse((globalThis as any).localStorage.getItem('spoor.token')).id_token as string,
      );
      const api = new ApiClient(spoor.url, token);
      await waitFor(
        () => api.get('/v1/sessions', { origin, project: PROJECT }),
        (r) => r.body?.sessions?.length === 3,
        60_000,
        'three sessions',
      );
      await waitFor(
        () => api.get('/v1/sessions/visit-reader', { origin, project: PROJECT }),
        (r) => r.body?.event_count === 5,
        60_000,
        'the reader’s five events',
      );
      const list = (title: string) => page.getByRole('region', { name: title }).locator('.name').allTextContents();
      const expectFigures = async () => {
        expect(await figure(page, 'Events')).to.equal('6');
        expect(await figure(page, 'Sessions')).to.equal('2');
        expect(await figure(page, 'Unique visitors')).to.equal('1');
        expect(await figure(page, 'Bounce rate')).to.equal('50%');
        expect(await page.locator('.uplot canvas').count()).to.equal(2);
        expect(await list('Top pages')).to.include.members(['/', '/pricing']);
        expect(await list('Referrers')).to.deep.equal(['news.example']);
        expect(await list('UTM sources')).to.deep.equal(['newsletter']);
        expect(await list('Browsers')).to.deep.equal(['Chrome']);
        expect(await list('Devices')).to.deep.equal(['desktop']);
      };
      // No job: the Overview asks the stats API for the last 24 hours.
      await go(page, 'Overview');
      await page.locator('.uplot canvas').nth(1).waitFor();
      await expectFigures();
      await finish('overview');
      // The stored overviews (the digest history) and "Aggregate now" are the Reports page's.
      await page.getByRole('link', { name: 'Reports', exact: true }).first().click();
      await page.getByRole('heading', { name: `Reports of ${PROJECT}` }).waitFor();
      await see(page, 'No stored overview of the last 24 hours yet');
      await page.getByRole('button', { name: 'Aggregate now' }).click();
      await see(page, 'Aggregated.', 60_000);
      await page.locator('.uplot canvas').nth(1).waitFor();
      await expectFigures();
      expect(await page.getByRole('region', { name: 'Stored overviews' }).getByRole('listitem').count()).to.equal(1);
      await finish('reports');
    });

    it('opens a session and reads it as a story: summary, timeline with enrichment, tag by hand', async () => {
      await go(page, 'Sessions');
      expect(await page.locator('.session-row').count()).to.equal(3);
      await page.locator('.session-row', { hasText: 'utm_source=newsletter' }).getByRole('link').click();
      await page.getByRole('heading', { name: 'Session', exact: true }).waitFor();
      await see(page, 'visit-reader');
      await see(page, 'Timeline (5 events)');
      expect(await texts(page, '.timeline .action')).to.deep.equal([
        'session_start',
        'pageview',
        'click',
        'pageview',
        'click',
      ]);
      await page.locator('.timeline summary').first().click();
      expect(await page.locator('.timeline details').first().textContent())
        .to.contain('Browser: Chrome')
        .and.contain('UTM: source=newsletter');
      await see(page, /^(Not classified yet|No rule matches this session)\.$/);
      await page.getByLabel('Add a tag').fill('vip');
      await page.getByRole('button', { name: 'Tag session' }).click();
      await see(page, 'Tagged “vip”.');
      expect(await texts(page, '[aria-label="Tags of this session"] li')).to.deep.equal(['vip']);
      expect(await page.getByText('No tags yet.').count(), 'the empty-state line goes once a tag is there').to.equal(0);
      await finish('session');
    });

    it('lists sessions newest first and filters them by tag and by time', async () => {
      // The list costs one request to the sessions API, however many sessions it shows.
      const asked: string[] = [];
      const count = (r: { url(): string }) => {
        const path = new URL(r.url()).pathname;
        if (path.startsWith('/v1/sessions')) asked.push(path);
      };
      page.on('request', count);
      await go(page, 'Sessions');
      expect(await page.locator('.session-row').count()).to.equal(3);
      page.off('request', count);
      expect(asked).to.deep.equal(['/v1/sessions']);
      await page.getByLabel('Tag').selectOption('vip');
      await page.getByRole('button', { name: 'Filter' }).click();
      await page.waitForURL('**/sessions?tag=vip');
      await see(page, '1 shown');
      expect(await page.locator('.session-row').count()).to.equal(1);
      await finish('sessions-tagged');
      await page.goto(
        `${spoor.url}/sessions?from=${encodeURIComponent(new Date(Date.now() - 86_400_000 - new Date().getTimezoneOffset() * 60_000).toISOString().slice(0, 16))}`,
      );
      await see(page, '2 shown');
      await finish('sessions');
    });

    it('lists every action with last-seen and flags the one that stopped arriving', async () => {
      await go(page, 'Actions');
      await see(page, '1 of 4 actions stopped arriving.');
      const row = (a: string) => page.locator('.action-list li', { hasText: a }).textContent();
      expect(await row('legacy_signup')).to.contain('stopped arriving');
      expect(await row('pageview'))
        .to.contain('arriving')
        .and.not.contain('stopped');
      await finish('actions');
    });
  });
}
