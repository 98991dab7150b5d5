import { expect } from 'chai';
import { Router } from 'express';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { loadConfig } from '@spoor/config';
import { createLogger } from '@spoor/service-log';
import { freePort, makeTempDir } from '@spoor/testkit';
import { runServices, type RunningProcess, type ServiceModule } from '../src/index.js';

describe('runServices', function () {
  this.timeout(30_000);
  let running: RunningProcess | null = null;
  after(async () => running?.stop());

  it('answers 503 with Retry-After until every service has mounted its routes; /livez at once, /healthz ready after', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const slow: ServiceModule = {
      name: 'gateway',
      serves: true,
      async start() {
        await gate;
        const router = Router();
        router.get('/v1/hello', (_req, res) => void res.json({ hello: true }));
        return { router, stop: async () => {} };
      },
    };
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const config = loadConfig({
      SPOOR_DATA_DIR: await makeTempDir('runtime'),
      SPOOR_PORT: String(port),
      SPOOR_SERVICES: 'gateway',
      SPOOR_LOG_LEVEL: 'error',
    });
    const starting = runServices(config, [slow], createLogger('test', 'error')).then((r) => (running = r));
    // The server listens before the slow service is up.
    let early: Response | null = null;
    for (let i = 0; i < 200 && !early; i++)
      early = await fetch(`${url}/v1/hello`).catch(() => new Promise((r) => setTimeout(r, 50)).then(() => null));
    if (!early) throw new Error('the server never listened');
    expect(early.status).to.equal(503);
    expect(early.headers.get('retry-after')).to.equal('1');
    expect(early.headers.get('access-control-allow-origin')).to.be.a('string');
    expect(await early.json()).to.deep.equal({ detail: 'Starting; retry shortly' });
    expect((await fetch(`${url}/livez`)).status).to.equal(200);
    const starting503 = await fetch(`${url}/healthz`);
    expect(starting503.status).to.equal(503);
    expect(starting503.headers.get('retry-after')).to.equal('1');
    expect(await starting503.json()).to.include({ status: 'starting' });
    release();
    await starting;
    expect(await (await fetch(`${url}/v1/hello`)).json()).to.deep.equal({ hello: true });
    const ready = await fetch(`${url}/healthz`);
    expect(ready.status).to.equal(200);
    expect(await ready.json()).to.include({ status: 'ok' });
  });

  it('closes what it opened when a service fails to start: the others stopped, the port free, the error passed on', async () => {
    let stopped = 0;
    const fine: ServiceModule = {
      name: 'gateway',
      serves: true,
      async start() {
        return { stop: async () => void stopped++ };
      },
    };
    const broken: ServiceModule = {
      name: 'worker',
      async start() {
        throw new Error('the engine refused');
      },
    };
    const port = await freePort();
    const config = loadConfig({
      SPOOR_DATA_DIR: await makeTempDir('runtime'),
      SPOOR_PORT: String(port),
      SPOOR_SERVICES: 'gateway,worker',
      SPOOR_LOG_LEVEL: 'error',
      SPOOR_PIPELINE_THREAD: 'main',
    });
    const failed = await runServices(config, [fine, broken], createLogger('test', 'error')).then(
      () => null,
      (err: Error) => err,
    );
    expect(failed?.message).to.equal('the engine refused');
    expect(stopped, 'the service that had started is stopped').to.equal(1);
    const refused = await fetch(`http://127.0.0.1:${port}/livez`).then(
      () => 'answered',
      () => 'refused',
    );
    expect(refused, 'nothing listens on the port any more').to.equal('refused');
  });

  // Issue 19: a Kubernetes Deployment of one consumer needs probes and a scrape target, and is
  // ready only once its consumers joined their groups (subscribe resolves after the join).
  describe('a process of consumers alone', () => {
    const consumerModule = (gate: Promise<void>, hold: Promise<void> = Promise.resolve()): ServiceModule => ({
      name: 'enricher',
      async start({ adapters }) {
        await gate;
        const consumes = { topic: 'probe.events', group: 'probe-group' };
        const sub = await adapters.bus.subscribe({ ...consumes, handler: () => hold });
        return { consumes: [consumes], stats: () => ({ enriched: 0 }), stop: () => sub.stop() };
      },
    });

    it('opens no port unless SPOOR_HEALTH_HTTP asks for one', async () => {
      const config = loadConfig({
        SPOOR_DATA_DIR: await makeTempDir('runtime'),
        SPOOR_PORT: '0',
        SPOOR_SERVICES: 'enricher',
        SPOOR_LOG_LEVEL: 'error',
      });
      const quiet = await runServices(config, [consumerModule(Promise.resolve())], createLogger('test', 'error'));
      try {
        expect(quiet.http).to.equal(null);
      } finally {
        await quiet.stop();
      }
    });

    it('with SPOOR_HEALTH_HTTP: /livez at once, /healthz 503 until its consumers joined, then lag in /healthz and /metrics', async () => {
      let release!: () => void;
      const gate = new Promise<void>((r) => (release = r));
      let unhold!: () => void;
      const hold = new Promise<void>((r) => (unhold = r));
      const port = await freePort();
      const url = `http://127.0.0.1:${port}`;
      const config = loadConfig({
        SPOOR_DATA_DIR: await makeTempDir('runtime'),
        SPOOR_PORT: String(port),
        SPOOR_SERVICES: 'enricher',
        SPOOR_HEALTH_HTTP: 'true',
        SPOOR_LOG_LEVEL: 'error',
        SPOOR_LAG_SAMPLE_MS: '50',
      });
      const starting = runServices(config, [consumerModule(gate, hold)], createLogger('test', 'error'));
      let live: Response | null = null;
      for (let i = 0; i < 200 && !live; i++)
        live = await fetch(`${url}/livez`).catch(() => new Promise((r) => setTimeout(r, 50)).then(() => null));
      if (!live) throw new Error('the consumer process never listened');
      expect(live.status).to.equal(200);
      expect((await fetch(`${url}/healthz`)).status).to.equal(503);
      release();
      const proc = await starting;
      try {
        const health = await fetch(`${url}/healthz`);
        expect(health.status).to.equal(200);
        expect(((await health.json()) as { lag: unknown }).lag).to.deep.equal({ 'probe.events/probe-group': 0 });
        // Three messages the handler holds: published, not yet processed.
        await proc.adapters.bus.publish(
          'probe.events',
          [1, 2, 3].map((i) => ({ key: `k${i}`, value: `v${i}` })),
        );
        const metrics = await waitForText(`${url}/metrics`, /^spoor_consumer_lag\{[^}]*\} 3$/m);
        expect(metrics).to.match(/^spoor_consumer_lag\{topic="probe\.events",group="probe-group"\} 3$/m);
        expect(metrics).to.match(/^kafka_consumergroup_lag\{topic="probe\.events",consumergroup="probe-group"\} 3$/m);
        expect(metrics).to.match(/^spoor_service_counter\{service="enricher",counter="enriched"\} 0$/m);
        // /healthz answers from the background reading (every 50 ms here), which catches up.
        const published = Date.now();
        type Healthz = { lag: Record<string, number>; lag_sampled_at: number };
        let seen: Healthz = { lag: {}, lag_sampled_at: 0 };
        for (let i = 0; i < 100 && seen.lag_sampled_at <= published; i++) {
          await new Promise((r) => setTimeout(r, 20));
          seen = (await (await fetch(`${url}/healthz`)).json()) as Healthz;
        }
        expect(seen.lag).to.deep.equal({ 'probe.events/probe-group': 3 });
        expect((await fetch(`${url}/v1/anything`)).status).to.equal(404);
      } finally {
        unhold();
        await proc.stop();
      }
    });
  });

  /** An embedded process serving `service` as its gateway alone, on a fresh data directory. */
  async function startGateway(service: ServiceModule): Promise<RunningProcess> {
    const config = loadConfig({
      SPOOR_DATA_DIR: await makeTempDir('runtime'),
      SPOOR_PORT: '0',
      SPOOR_SERVICES: 'gateway',
      SPOOR_LOG_LEVEL: 'error',
    });
    return runServices(config, [service], createLogger('test', 'error'));
  }

  /** Starts and stops a process whose one service holds 16 MB; answers a weak reference to that. */
  async function startAndStop(): Promise<WeakRef<object>> {
    const held = { big: new Uint8Array(16 * 1024 * 1024) };
    const service: ServiceModule = {
      name: 'gateway',
      serves: true,
      async start() {
        return { router: Router(), stats: () => ({ size: held.big.length }), stop: async () => {} };
      },
    };
    const started = await startGateway(service);
    // /metrics reads every service's figures: its registry must not outlive the process.
    expect(await (await fetch(`${started.http!.url}/metrics`)).text()).to.match(
      /spoor_service_counter\{service="gateway",counter="size"\} 16777216/,
    );
    await started.stop();
    return new WeakRef(held);
  }

  it("exports the embedded store's memory by DuckDB's tag on /metrics, its primary-key indexes among them (issue 14)", async () => {
    const service: ServiceModule = {
      name: 'gateway',
      serves: true,
      start: async () => ({ router: Router(), stop: async () => {} }),
    };
    const started = await startGateway(service);
    try {
      const text = await (await fetch(`${started.http!.url}/metrics`)).text();
      const index = /^spoor_store_memory_bytes\{tag="ART_INDEX"\} (\d+)$/m.exec(text);
      expect(
        index,
        text
          .split('\n')
          .filter((l) => l.includes('store'))
          .join('\n'),
      ).to.not.equal(null);
      expect(Number(index![1])).to.be.greaterThan(0);
    } finally {
      await started.stop();
    }
  });

  it('leaves nothing of a stopped process reachable, so a test run can start many (issue 20)', async () => {
    // A full GC on demand, without starting node with --expose-gc.
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const refs = [await startAndStop(), await startAndStop()];
    await new Promise((r) => setTimeout(r, 10));
    gc();
    expect(refs.map((r) => r.deref() === undefined)).to.deep.equal([true, true]);
  });
});

/** Fetches `url` until its body matches `pattern` (5 s at most), and returns that body. */
async function waitForText(url: string, pattern: RegExp): Promise<string> {
  let text = '';
  for (let i = 0; i < 100; i++) {
    text = await (await fetch(url)).text();
    if (pattern.test(text)) return text;
    await new Promise((r) => setTimeout(r, 50));
  }
  return text;
}
