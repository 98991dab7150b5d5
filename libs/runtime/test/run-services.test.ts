import { expect } from 'chai';
import { Router } from 'express';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { loadConfig } from '@spoor/config';
import { createLogger } from '@spoor/log';
import { freePort, makeTempDir } from '@spoor/testkit';
import { runServices, type RunningProcess, type ServiceModule } from '../src/index.js';

describe('runServices', function () {
  this.timeout(30_000);
  let running: RunningProcess | null = null;
  after(async () => running?.stop());

  it('answers 503 with Retry-After until every service has mounted its routes, /healthz at once', async () => {
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
    const config = loadConfig({ SPOOR_DATA_DIR: await makeTempDir('runtime'), SPOOR_PORT: String(port), SPOOR_SERVICES: 'gateway', SPOOR_LOG_LEVEL: 'error' });
    const starting = runServices(config, [slow], createLogger('test', 'error')).then((r) => (running = r));
    // The server listens before the slow service is up.
    let early: Response | null = null;
    for (let i = 0; i < 200 && !early; i++) early = await fetch(`${url}/v1/hello`).catch(() => (new Promise((r) => setTimeout(r, 50)).then(() => null)));
    if (!early) throw new Error('the server never listened');
    expect(early.status).to.equal(503);
    expect(early.headers.get('retry-after')).to.equal('1');
    expect(early.headers.get('access-control-allow-origin')).to.be.a('string');
    expect(await early.json()).to.deep.equal({ detail: 'Starting; retry shortly' });
    expect((await fetch(`${url}/healthz`)).status).to.equal(200);
    release();
    await starting;
    expect(await (await fetch(`${url}/v1/hello`)).json()).to.deep.equal({ hello: true });
  });

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
    const config = loadConfig({ SPOOR_DATA_DIR: await makeTempDir('runtime'), SPOOR_PORT: '0', SPOOR_SERVICES: 'gateway', SPOOR_LOG_LEVEL: 'error' });
    const started = await runServices(config, [service], createLogger('test', 'error'));
    // /metrics reads every service's figures: its registry must not outlive the process.
    expect(await (await fetch(`${started.http!.url}/metrics`)).text()).to.match(/spoor_service_counter\{service="gateway",counter="size"\} 16777216/);
    await started.stop();
    return new WeakRef(held);
  }

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
