import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { requireEngine } from '@spoor/testkit';
import { MODES } from '../support/engine-env.js';
import { post, registerProject, startSpoor, waitFor, type Harness } from '../support/spoor-harness.js';

const CHROME =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36';
const GOOGLEBOT = 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)';
const ORIGIN = 'https://shop.example';
const MIN = 60_000;

// The default embedded process runs its consumers on a pipeline thread; SPOOR_PIPELINE_THREAD=main
// keeps them on the HTTP thread (issue 14): both must store the same.
const VARIANTS = [
  ...MODES.map((mode) => ({ mode, label: mode, env: {} })),
  {
    mode: 'embedded' as const,
    label: 'embedded on one thread (SPOOR_PIPELINE_THREAD=main)',
    env: { SPOOR_PIPELINE_THREAD: 'main' },
  },
];

for (const { mode, label, env } of VARIANTS) {
  describe(`Pipeline end to end: ${label}`, function () {
    this.timeout(120_000);
    let spoor: Harness;
    let projectId: string;

    before(async function () {
      const started = await startSpoor(mode, { SPOOR_TRUST_PROXY: 'true', ...env });
      requireEngine(this, started ? 'ok' : null, `engines for ${mode} mode`);
      spoor = started!;
      projectId = (await registerProject(spoor.store, ORIGIN, 'shop/web')).project_id;
    });
    after(async () => spoor?.stop());

    const send = (events: unknown[], headers: Record<string, string> = {}) =>
      post(
        `${spoor.url}/v1/event/batch`,
        { events },
        { origin: ORIGIN, 'user-agent': CHROME, 'x-forwarded-for': '8.8.8.8', ...headers },
      );

    it('stores raw and enriched events, a session summary and actions last-seen', async () => {
      const t0 = Date.UTC(2026, 10, 20, 10, 0, 0);
      const sid = `s-${randomUUID()}`;
      const res = await send([
        {
          project: 'shop/web',
          action: 'pageview',
          timestamp: t0,
          session_id: sid,
          url: 'https://shop.example/?utm_source=news&utm_medium=email&q=boots',
          referrer: 'https://news.example/today',
          payload: { title: 'Home' },
        },
        {
          project: 'shop/web',
          action: 'click',
          timestamp: t0 + 5_000,
          session_id: sid,
          url: 'https://shop.example/?q=boots',
          payload: { text: 'Buy «now»', nested: { a: [1, 2] } },
        },
        {
          project: 'shop/web',
          action: 'pageview',
          timestamp: t0 + 65_000,
          session_id: sid,
          url: 'https://shop.example/cart',
          payload: {},
        },
      ]);
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      expect(res.body.accepted).to.equal(3);
      expect(res.headers.get('access-control-allow-origin')).to.equal(ORIGIN);

      const session = await waitFor(
        () => spoor.store.sessions.get(projectId, sid),
        (s) => s?.event_count === 3,
        30_000,
        'session summary',
      );
      expect(session).to.include({
        first_event_at: t0,
        last_event_at: t0 + 65_000,
        duration_ms: 65_000,
        page_count: 2,
      });
      expect(session!.actions).to.deep.equal({ pageview: 2, click: 1 });
      expect(session!.entry_url).to.equal('https://shop.example/?utm_source=news&utm_medium=email&q=boots');
      expect(session!.exit_url).to.equal('https://shop.example/cart');
      expect(session!.referrer).to.equal('https://news.example/today');
      expect(session!.utm.source).to.equal('news');
      expect(session!.browser.name).to.equal('Chrome');
      expect(session!.geo.country).to.equal('US');

      const raw = await spoor.store.events.listRaw(projectId, { limit: 100 });
      const click = raw.find((e) => e.action === 'click')!;
      expect(click.payload).to.deep.equal({ text: 'Buy «now»', nested: { a: [1, 2] } });
      expect(click.ip).to.equal('8.8.8.8');
      expect(click.user_agent).to.equal(CHROME);
      expect(click.received_at).to.be.within(Date.now() - 60_000, Date.now());

      const enriched = await spoor.store.events.sessionEvents(projectId, sid);
      expect(enriched.map((e) => e.action)).to.deep.equal(['pageview', 'click', 'pageview']);
      expect(enriched[0]).to.deep.include({
        path: '/',
        query: { utm_source: 'news', utm_medium: 'email', q: 'boots' },
      });
      expect(enriched[0]!.utm).to.include({ source: 'news', medium: 'email' });
      expect(enriched[0]!.os.name).to.equal('Windows');
      expect(enriched[0]!.device.type).to.equal('desktop');

      const actions = await waitFor(
        () => spoor.store.events.listActions(projectId),
        (a) => a.length >= 2,
        10_000,
        'actions',
      );
      expect(actions.find((a) => a.action === 'pageview')?.last_seen).to.equal(t0 + 65_000);
      expect(actions.find((a) => a.action === 'click')?.last_seen).to.equal(t0 + 5_000);
    });

    it('derives sessions without a session_id and cuts them after 30 minutes', async () => {
      const t0 = Date.UTC(2026, 10, 20, 12, 0, 0);
      const ua = `${CHROME} derived-${randomUUID()}`;
      const at = (ms: number, action = 'pageview') => ({
        project: 'shop/web',
        action,
        timestamp: t0 + ms,
        url: 'https://shop.example/a',
        payload: {},
      });
      expect((await send([at(0), at(10 * MIN), at(29 * MIN)], { 'user-agent': ua })).status).to.equal(200);
      expect((await send([at(60 * MIN)], { 'user-agent': ua })).status).to.equal(200);
      const sessions = await waitFor(
        () => spoor.store.sessions.list(projectId, { limit: 1000, window_start: t0, window_end: t0 + 2 * 60 * MIN }),
        (s) => s.reduce((n, x) => n + x.event_count, 0) >= 4,
        30_000,
        'derived sessions',
      );
      expect(sessions.map((s) => s.event_count).sort()).to.deep.equal([1, 3]);
      expect(sessions[0]!.first_event_at).to.equal(t0 + 60 * MIN); // newest first
    });

    it('stores a repeated event_id once and counts it once', async () => {
      const sid = `dup-${randomUUID()}`;
      const event = {
        project: 'shop/web',
        action: 'click',
        timestamp: Date.UTC(2026, 10, 20, 14),
        session_id: sid,
        event_id: `e-${randomUUID()}`,
        payload: { n: 1 },
      };
      expect((await send([event])).status).to.equal(200);
      expect((await send([event, { ...event, payload: { n: 2 } }])).status).to.equal(200);
      const later = { ...event, event_id: `e-${randomUUID()}` };
      expect((await send([later])).status).to.equal(200);
      const session = await waitFor(
        () => spoor.store.sessions.get(projectId, sid),
        (s) => (s?.event_count ?? 0) >= 2,
        30_000,
        'session',
      );
      await new Promise((r) => setTimeout(r, 500));
      expect((await spoor.store.sessions.get(projectId, sid))!.event_count).to.equal(2);
      expect(session!.actions).to.deep.equal({ click: 2 });
      const events = await spoor.store.events.sessionEvents(projectId, sid);
      expect(events.map((e) => e.event_id).sort()).to.deep.equal([event.event_id, later.event_id].sort());
      // The two repeats show under the catalogue's name (issue 20): dropped by the enricher as duplicates.
      const metrics = await (await fetch(`${spoor.url}/metrics`)).text();
      const duplicates = Number(
        /^spoor_events_dropped_total\{service="enricher",reason="duplicate"\} (\d+)$/m.exec(metrics)?.[1],
      );
      expect(duplicates).to.be.at.least(2);
    });

    it('stores bots but keeps them out of sessions', async () => {
      const sid = `bot-${randomUUID()}`;
      const res = await send(
        [
          {
            project: 'shop/web',
            action: 'pageview',
            timestamp: Date.UTC(2026, 10, 20, 15),
            session_id: sid,
            payload: {},
          },
        ],
        { 'user-agent': GOOGLEBOT },
      );
      expect(res.status).to.equal(200);
      const events = await waitFor(
        () => spoor.store.events.sessionEvents(projectId, sid),
        (e) => e.length === 1,
        30_000,
        'bot event',
      );
      expect(events[0]!.bot).to.equal(true);
      await new Promise((r) => setTimeout(r, 500));
      expect(await spoor.store.sessions.get(projectId, sid)).to.equal(null);
    });

    it('accepts a sendBeacon text/plain body and a single event', async () => {
      const sid = `beacon-${randomUUID()}`;
      const res = await post(
        `${spoor.url}/v1/event`,
        JSON.stringify({
          project: 'shop/web',
          action: 'leave',
          timestamp: Date.UTC(2026, 10, 20, 16),
          session_id: sid,
        }),
        { 'content-type': 'text/plain;charset=UTF-8', origin: ORIGIN, 'user-agent': CHROME },
      );
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      const session = await waitFor(
        () => spoor.store.sessions.get(projectId, sid),
        (s) => s !== null,
        30_000,
        'beacon session',
      );
      expect(session!.actions).to.deep.equal({ leave: 1 });
      const raw = await spoor.store.events.sessionEvents(projectId, sid);
      expect(raw[0]!.payload).to.deep.equal({});
    });

    // Issue 41, target 3: a site's trickle of single events reaches the store in a few inserts of
    // many rows (SPOOR_PIPELINE_LINGER_MS, 1 s), not in one insert per request.
    it('stores a trickle of single events in a few inserts, not one per request', async () => {
      const inserts = async () => {
        const text = await (await fetch(`${spoor.url}/metrics`)).text();
        return Number(/^spoor_store_inserts_total\{table="events"\} (\d+)/m.exec(text)?.[1] ?? 0);
      };
      const before = await inserts();
      const sid = `trickle-${randomUUID()}`;
      const t0 = Date.UTC(2026, 10, 20, 17);
      for (let i = 0; i < 12; i++) {
        const event = { project: 'shop/web', action: 'scroll', timestamp: t0 + i * 1_000, session_id: sid };
        const res = await post(`${spoor.url}/v1/event`, event, { origin: ORIGIN, 'user-agent': CHROME });
        expect(res.status, JSON.stringify(res.body)).to.equal(200);
        await new Promise((r) => setTimeout(r, 25));
      }
      await waitFor(
        () => spoor.store.sessions.get(projectId, sid),
        (s) => s?.event_count === 12,
        30_000,
        'the trickle stored',
      );
      expect(await spoor.store.events.sessionEvents(projectId, sid)).to.have.length(12);
      const made = (await inserts()) - before;
      expect(made).to.be.within(1, 3);
    });
  });
}
