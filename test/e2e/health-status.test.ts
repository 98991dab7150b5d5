import { expect } from 'chai';
import { requireEngine } from '@spoor/testkit';
import { ApiClient, signUp } from '../support/api-client.js';
import { MODES } from '../support/engine-env.js';
import { startSpoor, waitFor, type Harness } from '../support/spoor-harness.js';

for (const mode of MODES) {
  describe(`Health: /v1/status/health, its history, /metrics: ${mode}`, function () {
    this.timeout(120_000);
    let spoor: Harness;
    let api: ApiClient;
    const scope = { origin: 'http://localhost:4300', project: 'health/web' };

    before(async function () {
      // System-wide health is for operators (DESIGN.md, Operators): this account is one.
      const started = await startSpoor(mode, {
        SPOOR_HEARTBEAT_MS: '200',
        SPOOR_HEALTH_SNAPSHOT_MS: '300',
        SPOOR_ADMIN_EMAILS: 'health-ops@example.com',
      });
      requireEngine(this, started ? 'ok' : null, `engines for ${mode} mode`);
      spoor = started!;
      api = await signUp(spoor.url, 'health-ops@example.com');
      expect((await api.post('/v1/users/projects', scope)).status).to.equal(200);
    });
    after(async () => spoor?.stop());

    it('answers 401 without a token', async () => {
      const anon = new ApiClient(spoor.url);
      for (const path of ['/v1/status/health', '/v1/status/health/history'])
        expect((await anon.get(path)).status, path).to.equal(401);
    });

    it('answers 403 to an account that is not an operator', async () => {
      const other = await signUp(spoor.url);
      for (const path of ['/v1/status/health', '/v1/status/health/history']) {
        const res = await other.get(path);
        expect(res.status, path).to.equal(403);
        expect(res.body.detail, path).to.match(/^Operators only/);
      }
    });

    it('shows every service alive, the version, the storage, and ingest figures that move under load', async () => {
      const first = await api.get('/v1/status/health');
      expect(first.status, first.text).to.equal(200);
      expect(first.body.status).to.equal('ok');
      expect(first.body.problems).to.deep.equal([]);
      expect(first.body.services.map((s: any) => [s.name, s.alive])).to.deep.equal(
        ['ingest', 'enricher', 'sessionizer', 'classifier', 'worker', 'gateway'].map((n) => [n, true]),
      );
      const doc = (await (await fetch(`${spoor.url}/openapi.json`)).json()) as { info: { version: string } };
      expect(first.body.version).to.equal(doc.info.version);
      expect(first.body.storage.kind).to.equal(mode === 'embedded' ? 'duckdb' : 'clickhouse');
      expect(first.body.storage.size_bytes).to.be.greaterThan(0);
      expect(first.body.lag.map((l: any) => l.topic).some((t: string) => t.endsWith('events.raw'))).to.equal(true);
      const before = first.body.ingest.accepted_total as number;
      let rate = 0;
      const load = (async () => {
        for (let i = 0; i < 10; i++) {
          const events = Array.from({ length: 20 }, (_, k) => ({
            project: scope.project,
            action: 'click',
            timestamp: Date.now(),
            session_id: `h-${i}-${k}`,
            payload: {},
          }));
          const res = await fetch(`${spoor.url}/v1/event/batch`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', origin: scope.origin },
            body: JSON.stringify({ events }),
          });
          expect(res.status).to.equal(200);
          await new Promise((r) => setTimeout(r, 100));
        }
      })();
      const moved = await waitFor(
        () => api.get('/v1/status/health'),
        (r) => {
          rate = Math.max(rate, r.body.ingest.rate_per_s);
          return r.body.ingest.accepted_total >= before + 200;
        },
        20_000,
        'the ingest counter to move',
      );
      await load;
      expect(moved.body.ingest.accepted_total - before).to.equal(200);
      expect(rate, 'a rate above zero while events arrived').to.be.greaterThan(0);
    });

    it('keeps snapshots for the history, newest first, filtered by window', async () => {
      const res = await waitFor(
        () => api.get('/v1/status/health/history', { limit: 100 }),
        (r) => r.body?.snapshots?.length >= 3,
        20_000,
        'three snapshots',
      );
      const times = res.body.snapshots.map((s: any) => s.checked_at);
      expect(times).to.deep.equal([...times].sort((a: number, b: number) => b - a));
      expect(res.body.snapshots[0]).to.have.property('status');
      const older = await api.get('/v1/status/health/history', { window_end: times[0], limit: 100 });
      expect(older.body.snapshots.every((s: any) => s.checked_at < times[0])).to.equal(true);
      // The window leaves out at least the newest snapshot of the first answer.
      expect(older.body.snapshots.length).to.be.lessThan(res.body.snapshots.length);
      expect((await api.get('/v1/status/health/history', { limit: 0 })).status).to.equal(422);
    });

    it('serves Prometheus metrics without a token', async () => {
      const res = await fetch(`${spoor.url}/metrics`);
      expect(res.status).to.equal(200);
      expect(res.headers.get('content-type')).to.match(/^text\/plain/);
      const text = await res.text();
      expect(text).to.match(/spoor_service_counter\{service="ingest",counter="accepted"\} \d+/);
      expect(text).to.match(/spoor_consumer_lag\{topic="[^"]+events\.raw",group="[^"]+"\} \d+/);
      expect(text).to.contain('process_cpu_user_seconds_total');
    });
  });
}
