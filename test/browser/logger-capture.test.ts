import { expect } from 'chai';
import type { Browser } from 'playwright-core';
import type { ApiClient } from '../support/api-client.js';
import { newVisitor } from '../support/browser-visitor.js';
import { MODES } from '../support/engine-env.js';
import { waitFor, type Harness } from '../support/spoor-harness.js';
import { startLoggerRig, SITE_PROJECTS, type LoggerRig } from '../support/logger-rig.js';
import type { TestSite } from '../support/test-site.js';

/**
 * The one-line snippet on a real page in real Chromium, the site on one loopback port and Spoor
 * on another: what a visitor does arrives, in sessions, enriched, readable through the API.
 */
for (const mode of MODES) {
  describe(`Browser logger in Chromium, capture and sessions: ${mode}`, function () {
    this.timeout(180_000);
    let rig: LoggerRig;
    let spoor: Harness;
    let site: TestSite;
    let browser: Browser;
    let api: ApiClient;
    const projects = SITE_PROJECTS;
    let scope: { origin: string; project: string };

    before(async function () {
      rig = await startLoggerRig(this, mode);
      ({ browser, spoor, site, api } = rig);
      scope = { origin: site.origin, project: projects.tag };
    });
    after(async () => rig?.stop());

    const sessions = () => api.get('/v1/sessions', { ...scope, limit: 100 });
    const eventsOf = async (id: string) => (await api.get(`/v1/sessions/${id}/events`, scope)).body.events as any[];

    it('records a visit: page views of a single-page app, clicks, scroll depth, across a reload, in one session', async () => {
      const started = Date.now();
      const v = await newVisitor(browser);
      const { page } = v;
      await page.goto(`${site.origin}/?utm_source=newsletter`);
      await page.click('#buy');
      await page.fill('#email', 'secret@example.com');
      await page.click('#email');
      await page.click('#to-pricing');
      await page.waitForFunction('location.pathname === "/pricing"');
      await page.goBack();
      await page.waitForFunction('location.pathname === "/"');
      await page.click('#to-faq');
      await page.evaluate('window.scrollTo(0, document.documentElement.scrollHeight)');
      await page.waitForTimeout(400);
      await page.reload();
      await page.click('#buy');
      await page.close({ runBeforeUnload: true });
      expect(v.errors).to.deep.equal([]);
      await v.close();

      const listed = await waitFor(
        sessions,
        (r) => r.body?.sessions?.[0]?.event_count >= 12,
        60_000,
        'the visit’s events',
      );
      // The closing tab's beacon may still be on its way through the pipeline.
      await new Promise((r) => setTimeout(r, 1000));
      expect(listed.body.sessions).to.have.length(1);
      const id = listed.body.sessions[0].session_id as string;
      const all = await eventsOf(id);
      const events = all.slice(0, 12);
      const home = `${site.origin}/?utm_source=newsletter`;
      expect(events.map((e) => [e.action, e.url])).to.deep.equal([
        ['session_start', home],
        ['pageview', home],
        ['click', home],
        ['click', home],
        ['click', home],
        ['pageview', `${site.origin}/pricing`],
        ['pageview', home],
        ['click', home],
        ['pageview', `${home}#faq`],
        ['scroll', `${home}#faq`],
        ['pageview', `${home}#faq`],
        ['click', `${home}#faq`],
      ]);
      // Reloading restores the scroll position, which fires scroll events in its own time: the
      // reloaded page's depth may follow, sent as the tab closed.
      expect(['', 'scroll']).to.include(
        all
          .slice(12)
          .map((e) => e.action)
          .join(','),
      );
      expect(new Set(all.map((e) => e.event_id)).size).to.equal(all.length);
      expect(events.every((e) => e.timestamp >= started - 1000 && e.timestamp <= Date.now())).to.equal(true);
      expect(all.every((e) => e.session_id === id)).to.equal(true);

      // What was clicked, described; what was typed, nowhere.
      const clicks = events.filter((e) => e.action === 'click').map((e) => e.payload);
      expect(clicks[0]).to.deep.equal({
        tag: 'button',
        id: 'buy',
        classes: 'btn primary',
        text: 'Buy now',
        path: 'button#buy',
      });
      expect(clicks[1]).to.deep.equal({ tag: 'input', id: 'email', path: 'input#email' });
      expect(clicks[2]).to.deep.equal({
        tag: 'a',
        id: 'to-pricing',
        text: 'Pricing',
        href: `${site.origin}/pricing`,
        path: 'a#to-pricing',
      });
      expect(JSON.stringify(events)).not.to.contain('secret@example.com');

      // Page views: titles, and the previous page as the referrer of in-app navigation.
      const views = events.filter((e) => e.action === 'pageview');
      expect(views.map((e) => e.payload.title)).to.deep.equal(['Home', 'Pricing', 'Pricing', 'Pricing', 'Home']);
      expect(events.filter((e) => e.action === 'scroll').map((e) => e.payload.depth)).to.deep.equal([100]);

      // Enrichment of what the browser sent.
      const first = views[0];
      expect(first.browser.name).to.equal('Chrome');
      expect(first.os.name).to.equal('Linux');
      expect(first.bot).to.equal(false);
      expect(first.device.type ?? 'desktop').to.equal('desktop');
      expect(first.ip).to.equal('127.0.0.1');
      expect(first.path).to.equal('/');
      expect(first.query).to.deep.equal({ utm_source: 'newsletter' });
      expect(first.utm.source).to.equal('newsletter');
      expect(views[1].path).to.equal('/pricing');

      const summary = (await api.get(`/v1/sessions/${id}`, scope)).body;
      expect(summary).to.include({ session_id: id, event_count: all.length, entry_url: home });
      expect(summary.utm.source).to.equal('newsletter');
      expect(summary.duration_ms).to.be.greaterThan(0);

      const actions = (await api.get('/v1/events/actions', scope)).body.actions as Array<{
        action: string;
        last_seen: number;
      }>;
      expect(actions.map((a) => a.action).sort()).to.deep.equal(['click', 'pageview', 'scroll', 'session_start']);
      expect(actions.every((a) => a.last_seen >= started - 1000)).to.equal(true);
      // Raw events as received: each once.
      const raw = (await api.get('/v1/events', { ...scope, limit: 1000 })).body.events as any[];
      expect(raw.map((e) => e.event_id).sort()).to.deep.equal(all.map((e) => e.event_id).sort());
      // As sent, the referrer of an in-app navigation is the previous page (enrichment drops a
      // site's own pages as referrers, so the raw events show it).
      const rawOf = (e: any) => raw.find((r) => r.event_id === e.event_id);
      expect([views[1], views[2]].map((e) => rawOf(e).referrer)).to.deep.equal([home, `${site.origin}/pricing`]);
    });

    it('opens a new session for another visitor, and after 30 idle minutes', async () => {
      const before = new Set((await sessions()).body.sessions.map((s: any) => s.session_id));
      const v = await newVisitor(browser);
      await v.page.goto(`${site.origin}/pricing`);
      await v.page.click('#buy');
      await v.page.evaluate('spoor.flush()');
      // The visitor comes back 31 minutes later: the stored last activity says so.
      await v.page.evaluate(`(() => {
        const s = JSON.parse(sessionStorage.getItem('spoor_session'));
        sessionStorage.setItem('spoor_session', JSON.stringify({ ...s, at: Date.now() - 31 * 60000 }));
      })()`);
      await v.page.click('#buy');
      await v.page.evaluate('spoor.flush()');
      expect(v.errors).to.deep.equal([]);
      await v.close();
      const listed = await waitFor(
        sessions,
        (r) => r.body.sessions.filter((s: any) => !before.has(s.session_id)).length === 2,
        60_000,
        'two new sessions',
      );
      const fresh = listed.body.sessions.filter((s: any) => !before.has(s.session_id));
      const timelines = await Promise.all(
        fresh.map(async (s: any) => (await eventsOf(s.session_id)).map((e) => e.action)),
      );
      expect(timelines).to.have.deep.members([
        ['session_start', 'pageview', 'click'],
        ['session_start', 'click'],
      ]);
    });
  });
}
