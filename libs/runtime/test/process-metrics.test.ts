// /metrics carries what an operator watches (issue 19, Observability): requests by route and
// status, consumer batches, publishes, store calls, the pipeline's inserts and job durations, from a real process on the
// embedded engines.
import { expect } from 'chai';
import { Router } from 'express';
import { loadConfig } from '@spoor/config';
import { createLogger } from '@spoor/service-log';
import { freePort, makeTempDir } from '@spoor/testkit';
import { runServices, type RunningProcess, type ServiceModule } from '../src/index.js';

/** The value of one sample line of the exposition, or null when it is not there. */
function sample(text: string, name: string, labels: Record<string, string>): number | null {
  const want = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`)) continue;
    const inside = line.slice(name.length + 1, line.lastIndexOf('}'));
    const have = inside.split(',');
    if (want.every((w) => have.includes(w))) return Number(line.slice(line.lastIndexOf('}') + 1).trim());
  }
  return null;
}

describe('ProcessMetrics in /metrics', function () {
  this.timeout(30_000);
  let running: RunningProcess | null = null;
  after(async () => running?.stop());

  it('counts requests by route template and status, consumer batches by outcome, publishes, store calls and finished jobs', async () => {
    let failOnce = true;
    const handled: string[] = [];
    const probe: ServiceModule = {
      name: 'gateway',
      serves: true,
      async start({ adapters, metrics }) {
        const router = Router();
        router.get('/v1/things/:id', async (req, res) => {
          const project = await adapters.store.projects.get(req.params.id!);
          res.status(project ? 200 : 404).json({ found: project !== null });
        });
        const consumes = { topic: 'probe.metrics', group: 'probe-metrics' };
        const sub = await adapters.bus.subscribe({
          ...consumes,
          handler: async (batch) => {
            // The fault: the first delivery fails, the bus retries it.
            if (failOnce) {
              failOnce = false;
              throw new Error('injected');
            }
            // A pipeline write, counted by table in spoor_store_inserts_total (issue 41).
            await adapters.store.events.touchActions([{ project_id: 'p1', action: 'click', last_seen: 1 }]);
            handled.push(...batch.map((m) => m.value));
          },
        });
        metrics.jobFinished('aggregation', 'succeeded', 1500);
        const fastRoutes = [{ path: '/v1/fast', handler: async () => ({ ok: true }), limitBytes: 1000 }];
        return { router, fastRoutes, consumes: [consumes], stop: () => sub.stop() };
      },
    };
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const config = loadConfig({
      SPOOR_DATA_DIR: await makeTempDir('metrics'),
      SPOOR_PORT: String(port),
      SPOOR_SERVICES: 'gateway',
      SPOOR_LOG_LEVEL: 'error',
    });
    running = await runServices(config, [probe], createLogger('test', 'error'));

    for (const id of ['a', 'b', 'c']) expect((await fetch(`${url}/v1/things/${id}`)).status).to.equal(404);
    expect((await fetch(`${url}/v1/nothing-here`)).status).to.equal(404);
    const fast = { method: 'POST', headers: { 'content-type': 'application/json' } };
    expect((await fetch(`${url}/v1/fast`, { ...fast, body: '{}' })).status).to.equal(200);
    expect((await fetch(`${url}/v1/fast`, { ...fast, body: '{' })).status).to.equal(400);
    await running.adapters.bus.publish(
      'probe.metrics',
      [1, 2, 3].map((i) => ({ key: `k${i}`, value: `v${i}` })),
    );
    for (let i = 0; i < 100 && handled.length < 3; i++) await new Promise((r) => setTimeout(r, 50));
    expect(handled).to.deep.equal(['v1', 'v2', 'v3']);

    const text = await (await fetch(`${url}/metrics`)).text();
    const count = (name: string, labels: Record<string, string>) => sample(text, `${name}_count`, labels);
    expect(
      count('spoor_http_request_duration_seconds', { method: 'GET', route: '/v1/things/:id', status: '404' }),
    ).to.equal(3);
    expect(count('spoor_http_request_duration_seconds', { method: 'GET', route: 'unmatched', status: '404' })).to.equal(
      1,
    );
    expect(count('spoor_http_request_duration_seconds', { method: 'POST', route: '/v1/fast', status: '200' })).to.equal(
      1,
    );
    expect(count('spoor_http_request_duration_seconds', { method: 'POST', route: '/v1/fast', status: '400' })).to.equal(
      1,
    );
    expect(
      count('spoor_consumer_batch_duration_seconds', {
        topic: 'probe.metrics',
        group: 'probe-metrics',
        outcome: 'failed',
      }),
    ).to.equal(1);
    expect(
      count('spoor_consumer_batch_duration_seconds', { topic: 'probe.metrics', group: 'probe-metrics', outcome: 'ok' }),
    ).to.equal(1);
    expect(sample(text, 'spoor_consumer_batch_size_sum', { topic: 'probe.metrics', group: 'probe-metrics' })).to.equal(
      6,
    );
    expect(count('spoor_bus_publish_duration_seconds', { topic: 'probe.metrics', outcome: 'ok' })).to.equal(1);
    expect(
      count('spoor_store_call_duration_seconds', { repository: 'projects', method: 'get', outcome: 'ok' }),
    ).to.equal(3);
    expect(sample(text, 'spoor_store_inserts_total', { table: 'actions' })).to.equal(1);
    expect(sample(text, 'spoor_store_inserts_total', { table: 'events' })).to.equal(null);
    expect(sample(text, 'spoor_job_duration_seconds_sum', { kind: 'aggregation', status: 'succeeded' })).to.equal(1.5);
    expect(text).to.match(/^process_resident_memory_bytes \d+/m);
  });
});
