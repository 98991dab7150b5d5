// Issue 18's live view end to end, in both modes: GET /v1/live's JSON refusals before the stream
// starts (401, 404, 422), the stream's headers and `retry:`, events sent as a browser appearing
// in a snapshot within seconds without IP or user agent, one computation per tick for two viewers
// of a project (the /metrics counter), and the stream ending as soon as the server stops.
import { expect } from 'chai';
import { requireEngine } from '@spoor/testkit';
import { ApiClient, signUp } from '../support/api-client.js';
import { DESKTOP_CHROME } from '../support/browser-visitor.js';
import { MODES } from '../support/engine-env.js';
import { liveComputations, openLive, type LiveReading } from '../support/live-stream-reader.js';
import { postAsBrowser, startSpoor, waitFor, type Harness } from '../support/spoor-harness.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

for (const mode of MODES) {
  describe(`Live view: ${mode}`, function () {
    this.timeout(120_000);
    let spoor: Harness;
    let api: ApiClient;
    const scope = { origin: 'http://localhost:4810', project: 'live/web' };
    const otherScope = { origin: 'http://localhost:4811', project: 'live/theirs' };
    const open: LiveReading[] = [];
    const live = async (token: string | null, q: Record<string, string>) => {
      const r = await openLive(spoor.url, token, q);
      open.push(r);
      return r;
    };

    before(async function () {
      const started = await startSpoor(mode, { SPOOR_SHUTDOWN_GRACE_MS: '30000' });
      requireEngine(this, started ? 'ok' : null, `engines for ${mode} mode`);
      spoor = started!;
      api = await signUp(spoor.url);
      const other = await signUp(spoor.url);
      expect((await api.post('/v1/users/projects', scope)).status).to.equal(200);
      expect((await other.post('/v1/users/projects', otherScope)).status).to.equal(200);
    });

    after(async () => {
      for (const r of open) r.close();
      await spoor?.stop();
    });

    it('answers 401, 404 and 422 as JSON before any stream', async () => {
      const anonymous = await live(null, scope);
      expect(anonymous.status).to.equal(401);
      expect(anonymous.headers.get('www-authenticate')).to.equal('Bearer');
      expect(anonymous.body.detail).to.be.a('string');
      expect((await live('not-a-token', scope)).status).to.equal(401);
      const theirs = await live(api.token, otherScope);
      expect([theirs.status, theirs.body.detail]).to.deep.equal([404, 'Project not found']);
      const missing = await live(api.token, { origin: scope.origin });
      expect(missing.status).to.equal(422);
      expect(missing.body.detail[0].loc).to.deep.equal(['query', 'project']);
      const tooLong = await live(api.token, { ...scope, project: 'x'.repeat(201) });
      expect([tooLong.status, tooLong.body.detail[0].loc]).to.deep.equal([422, ['query', 'project']]);
      const head = await fetch(
        new URL(
          `/v1/live?origin=${encodeURIComponent(scope.origin)}&project=${encodeURIComponent(scope.project)}`,
          spoor.url,
        ),
        { method: 'HEAD', headers: { authorization: `Bearer ${api.token}` } },
      );
      expect([head.status, head.headers.get('content-type')]).to.deep.equal([200, 'text/event-stream; charset=utf-8']);
    });

    it('shows events sent as a browser within seconds: visitors, their pages and the latest events, never IP or user agent', async () => {
      const reading = await live(api.token, scope);
      expect(reading.status).to.equal(200);
      expect(reading.headers.get('content-type')).to.match(/^text\/event-stream/);
      expect(reading.headers.get('cache-control')).to.contain('no-cache');
      const now = Date.now();
      const events = [
        {
          project: scope.project,
          action: 'pageview',
          timestamp: now - 2000,
          session_id: 'live-a',
          url: `${scope.origin}/`,
        },
        {
          project: scope.project,
          action: 'pageview',
          timestamp: now - 1000,
          session_id: 'live-a',
          url: `${scope.origin}/pricing?plan=team`,
        },
        {
          project: scope.project,
          action: 'click',
          timestamp: now - 500,
          session_id: 'live-b',
          url: `${scope.origin}/pricing`,
        },
        {
          project: scope.project,
          action: 'pageview',
          timestamp: now,
          session_id: 'live-c',
          url: `${scope.origin}/docs`,
        },
      ];
      const sent = Date.now();
      expect((await postAsBrowser(spoor.url, scope.origin, events)).status).to.equal(200);
      await waitFor(
        async () => reading.snapshots.at(-1),
        (s) => s?.visitors === 3,
        8000,
        'a snapshot with the three visitors',
      );
      const seenAfter = Date.now() - sent;
      const snap = reading.snapshots.at(-1)!;
      expect(reading.retryMs).to.equal(3000);
      expect(snap).to.include({ origin: scope.origin, project: scope.project, window_ms: 300_000, interval_ms: 2000 });
      expect(snap.pages).to.deep.equal([
        { path: '/pricing', visitors: 2 },
        { path: '/docs', visitors: 1 },
      ]);
      expect(snap.events.map((e) => [e.action, e.path, e.session_id])).to.deep.equal([
        ['pageview', '/docs', 'live-c'],
        ['click', '/pricing', 'live-b'],
        ['pageview', '/pricing', 'live-a'],
        ['pageview', '/', 'live-a'],
      ]);
      expect(snap.events[0]).to.include({ timestamp: now, browser: 'Chrome', device: 'desktop' });
      const text = JSON.stringify(reading.snapshots);
      for (const secret of ['127.0.0.1', '::1', DESKTOP_CHROME, '"ip"', '"user_agent"', 'plan=team'])
        expect(text).not.to.contain(secret);
      expect(seenAfter).to.be.below(8000);
    });

    // The ticker is the gateway's own (services/gateway/src/live/live-hub.ts), in the process
    // whatever engines it reads: one computation per tick however many viewers, and no ticker
    // once they left, are checked once, in embedded mode.
    if (mode === 'embedded') {
      it('computes one snapshot per tick for the project, however many viewers it has', async () => {
        const first = await live(api.token, scope);
        const second = await live(api.token, scope);
        await waitFor(
          async () => Math.min(first.snapshots.length, second.snapshots.length),
          (n) => n >= 1,
          8000,
          'both viewers served',
        );
        const before = await liveComputations(spoor.url);
        const [f0, s0] = [first.snapshots.length, second.snapshots.length];
        await sleep(6500);
        const computed = (await liveComputations(spoor.url)) - before;
        const ats = (r: LiveReading, from: number) => r.snapshots.slice(from).map((s) => s.at);
        // Three ticks in 6.5 s at 2 s each (give or take one): with two viewers counted apart it would be twice that.
        expect(computed).to.be.within(2, 4);
        expect(ats(first, f0).length).to.be.within(computed - 1, computed + 1);
        // Both viewers got the same computations, frame for frame.
        const common = ats(first, f0).filter((at) => ats(second, s0).includes(at));
        expect(common.length).to.be.at.least(computed - 1);
        expect((await api.get('/metrics')).text).to.match(/counter="live_viewers"} [1-9]/);
      });

      it("stops the project's ticker when its last viewer leaves", async () => {
        for (const r of open) r.close();
        await waitFor(
          async () => (await api.get('/metrics')).text,
          (t) => /counter="live_projects"} 0\b/.test(t),
          5000,
          'no live project left',
        );
        const before = await liveComputations(spoor.url);
        await sleep(2500);
        expect(await liveComputations(spoor.url)).to.equal(before);
      });
    }

    it('ends the stream as soon as the server stops, not after the shutdown grace', async () => {
      const reading = await live(api.token, scope);
      await waitFor(
        async () => reading.snapshots.length,
        (n) => n >= 1,
        8000,
        'a first snapshot',
      );
      const stopping = Date.now();
      const stopped = spoor.stop();
      await reading.ended;
      expect(Date.now() - stopping).to.be.below(5000);
      await stopped;
      spoor = undefined as unknown as Harness;
    });
  });
}
