import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { gzipSync } from 'node:zlib';
import type { Browser } from 'playwright-core';
import type { ApiClient } from '../support/api-client.js';
import { newVisitor } from '../support/browser-visitor.js';
import { MODES } from '../support/engine-env.js';
import { startSpoor, waitFor, type Harness } from '../support/spoor-harness.js';
import { startLoggerRig, SITE_PROJECTS, type LoggerRig } from '../support/logger-rig.js';
import type { TestSite } from '../support/test-site.js';

const loggerDist = join(dirname(createRequire(import.meta.url).resolve('@spoor/logger/package.json')), 'dist');
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Delivery in real Chromium: retries without duplicates, offline, opt-out, Do Not Track, the module
 * form. Offline, opt-out and Do Not Track are the logger's own behaviour (what the page sends or
 * keeps back), the same whatever stores what it sends: they run in embedded mode only. The retry
 * (each event stored once) and the module form (a session derived by the server) run on both.
 */
for (const mode of MODES) {
  describe(`Browser logger in Chromium, delivery and consent: ${mode}`, function () {
    this.timeout(180_000);
    let rig: LoggerRig;
    let spoor: Harness;
    let site: TestSite;
    let browser: Browser;
    let api: ApiClient;
    const projects = SITE_PROJECTS;
    const extra = ['site/retry', 'site/offline', 'site/optout-api'];

    before(async function () {
      rig = await startLoggerRig(this, mode, extra);
      ({ browser, spoor, site, api } = rig);
    });
    after(async () => rig?.stop());

    const rawEvents = async (project: string) =>
      (await api.get('/v1/events', { origin: site.origin, project, limit: 1000 })).body.events as any[];
    const actionsOf = async (project: string) => (await rawEvents(project)).map((e) => e.action).sort();

    it('retries a batch Spoor took but the page never heard back from, and stores each event once', async () => {
      const v = await newVisitor(browser);
      let refused = 0;
      const requests: string[][] = [];
      await v.page.route(`${spoor.url}/v1/event/batch`, async (route) => {
        requests.push((JSON.parse(route.request().postData() ?? '{}').events ?? []).map((e: any) => e.event_id));
        if (refused >= 2) return route.continue();
        refused++;
        await route.fetch(); // Spoor gets the batch and stores it …
        await route.fulfill({
          status: 503,
          headers: { 'access-control-allow-origin': site.origin, 'retry-after': '1' },
          body: '{"detail":"busy"}',
        }); // … the page hears 503
      });
      await v.page.goto(`${site.origin}/?project=site/retry`);
      await v.page.click('#buy');
      await waitFor(
        () => Promise.resolve(refused),
        (n) => n === 2,
        20_000,
        'two refused deliveries',
      );
      await v.page.click('#buy');
      const events = await waitFor(
        () => rawEvents('site/retry'),
        (e) => e.length >= 4,
        60_000,
        'four events',
      );
      await pause(1500);
      expect(await actionsOf('site/retry')).to.deep.equal(['click', 'click', 'pageview', 'session_start']);
      expect(new Set(events.map((e) => e.event_id)).size).to.equal(4);
      // The refused batches went out again with the same event ids: retried, stored once.
      const later = requests.slice(2).flat();
      expect(requests[0]!.length).to.be.at.least(2);
      expect([...requests[0]!, ...requests[1]!].every((id) => later.includes(id))).to.equal(true);
      // The browser reports the refused loads; nothing else may appear.
      expect(v.errors.filter((e) => !/status of 503/.test(e))).to.deep.equal([]);
      await v.close();
    });

    if (mode === 'embedded') {
      it('keeps events while offline and sends them when the connection returns', async () => {
        const v = await newVisitor(browser);
        await v.page.goto(`${site.origin}/?project=site/offline`);
        await waitFor(
          () => actionsOf('site/offline'),
          (a) => a.length === 2,
          30_000,
          'the first page view',
        );
        await v.context.setOffline(true);
        await v.page.click('#buy');
        await v.page.evaluate("spoor.track('note', { offline: true })");
        await pause(2500);
        expect(await actionsOf('site/offline')).to.deep.equal(['pageview', 'session_start']);
        await v.context.setOffline(false);
        await waitFor(
          () => actionsOf('site/offline'),
          (a) => a.length === 4,
          30_000,
          'the events kept while offline',
        );
        const note = (await rawEvents('site/offline')).find((e) => e.action === 'note');
        expect(note.payload).to.deep.equal({ offline: true });
        expect(v.errors).to.deep.equal([]);
        await v.close();
      });

      it('sends nothing for a visitor who opted out, and stops when one opts out during a visit', async () => {
        const v = await newVisitor(browser);
        const posted: string[] = [];
        v.context.on('request', (r) => {
          if (r.url().startsWith(`${spoor.url}/v1/`)) posted.push(r.url());
        });
        await v.page.goto(`${site.origin}/optout`);
        await v.page.click('#buy');
        await v.page.click('#to-pricing');
        await v.page.evaluate("spoor.track('custom', {})");
        await v.page.close({ runBeforeUnload: true });
        await pause(2000);
        expect(posted).to.deep.equal([]);
        expect(await rawEvents(projects.optOut)).to.deep.equal([]);

        // Opting out is per site (localStorage): a fresh visitor starts tracked, then opts out.
        const w = await newVisitor(browser);
        await w.page.goto(`${site.origin}/?project=site/optout-api`);
        await w.page.click('#buy');
        await w.page.evaluate('spoor.flush()');
        await waitFor(
          () => actionsOf('site/optout-api'),
          (a) => a.length === 3,
          30_000,
          'events before the opt-out',
        );
        await w.page.evaluate('spoor.optOut()');
        await w.page.click('#buy');
        await w.page.reload();
        await w.page.click('#buy');
        await w.page.close({ runBeforeUnload: true });
        await pause(2000);
        expect(await actionsOf('site/optout-api')).to.deep.equal(['click', 'pageview', 'session_start']);
        expect([...v.errors, ...w.errors]).to.deep.equal([]);
        await Promise.all([v.close(), w.close()]);
      });

      it('honours Do Not Track when the snippet asks it to', async () => {
        const dnt = await newVisitor(browser, async (c) => {
          await c.addInitScript("Object.defineProperty(Navigator.prototype, 'doNotTrack', { get: () => '1' })");
        });
        await dnt.page.goto(`${site.origin}/dnt`);
        await dnt.page.click('#buy');
        await dnt.page.close({ runBeforeUnload: true });
        await pause(2000);
        expect(await rawEvents(projects.dnt)).to.deep.equal([]);
        // The same page for a browser without DNT is tracked.
        const plain = await newVisitor(browser);
        await plain.page.goto(`${site.origin}/dnt`);
        await plain.page.click('#buy');
        await plain.page.close({ runBeforeUnload: true });
        await waitFor(
          () => actionsOf(projects.dnt),
          (a) => a.length === 3,
          30_000,
          'the tracked visit',
        );
        expect([...dnt.errors, ...plain.errors]).to.deep.equal([]);
        await Promise.all([dnt.close(), plain.close()]);
      });
    }

    it('works as an ES module: init with options, a custom event, no session id when sessions are off', async () => {
      const v = await newVisitor(browser);
      const sent: any[] = [];
      v.context.on('request', (r) => {
        if (r.url() === `${spoor.url}/v1/event/batch`) sent.push(...(JSON.parse(r.postData() ?? '{}').events ?? []));
      });
      await v.page.goto(`${site.origin}/module`);
      await v.page.click('#buy');
      await v.page.evaluate('spoorModule.flush()');
      const events = await waitFor(
        () => rawEvents(projects.module),
        (e) => e.length === 3,
        30_000,
        'the module page’s events',
      );
      expect(events.map((e) => e.action).sort()).to.deep.equal(['click', 'pageview', 'signup']);
      expect(events.find((e) => e.action === 'signup').payload).to.deep.equal({ plan: 'team', seats: 3 });
      // No session id from the page; Spoor derived one (from IP, user agent and day) for all three.
      expect(sent.map((e) => e.action).sort()).to.deep.equal(['click', 'pageview', 'signup']);
      expect(sent.some((e) => 'session_id' in e)).to.equal(false);
      expect(new Set(events.map((e) => e.session_id)).size).to.equal(1);
      const listed = await waitFor(
        () => api.get('/v1/sessions', { origin: site.origin, project: projects.module }),
        (r) => r.body.sessions.length === 1 && r.body.sessions[0].event_count === 3,
        30_000,
        'a derived session',
      );
      expect(listed.body.sessions[0].session_id).to.be.a('string');
      expect(v.errors).to.deep.equal([]);
      await v.close();
    });
  });
}

describe('The logger as served', function () {
  let spoor: Harness;
  before(async function () {
    spoor = (await startSpoor('embedded'))!;
  });
  after(async () => spoor?.stop());

  for (const [path, file] of [
    ['/logger.js', 'spoor.iife.js'],
    ['/logger.mjs', 'spoor.mjs'],
  ] as const) {
    it(`serves ${path}: the built bundle, JavaScript, cached for a week and revalidated by ETag`, async () => {
      const res = await fetch(`${spoor.url}${path}`);
      expect(res.status).to.equal(200);
      expect(res.headers.get('content-type')).to.match(/^text\/javascript/);
      expect(res.headers.get('cache-control')).to.contain('max-age=604800');
      const body = Buffer.from(await res.arrayBuffer());
      expect(body.equals(readFileSync(join(loggerDist, file)))).to.equal(true);
      const etag = res.headers.get('etag')!;
      expect((await fetch(`${spoor.url}${path}`, { headers: { 'if-none-match': etag } })).status).to.equal(304);
      // The same bytes under a name that changes with them, cached for a year.
      const hashed = await fetch(`${spoor.url}/logger/${etag.replaceAll('"', '')}${path.slice(path.lastIndexOf('.'))}`);
      expect(hashed.status).to.equal(200);
      expect(hashed.headers.get('cache-control')).to.equal('public, max-age=31536000, immutable');
    });
  }

  it('stays within 2.5 KB gzipped as a <script>, with no dependencies', () => {
    const code = readFileSync(join(loggerDist, 'spoor.iife.js'));
    expect(gzipSync(code, { level: 9 }).length).to.be.at.most(2560);
    expect(code.toString()).not.to.match(/\bimport\b|\brequire\(/);
    const pkg = JSON.parse(readFileSync(join(loggerDist, '..', 'package.json'), 'utf8')) as { dependencies?: object };
    expect(pkg.dependencies ?? {}).to.deep.equal({});
  });
});
