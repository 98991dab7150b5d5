import { expect } from 'chai';
import { Router } from 'express';
import { threadId } from 'node:worker_threads';
import { loadConfig } from '@spoor/config';
import { createLogger } from '@spoor/service-log';
import { StoreConflictError } from '@spoor/store';
import { makeTempDir } from '@spoor/testkit';
import { runServices, type RunningProcess, type ServiceModule } from '../src/index.js';
import { ownAdapters, threadable } from '../src/pipeline-thread.js';
import { PROBE_TOPIC, probeConsumerModule } from './fixtures/probe-consumer.js';

/** A front door: serves one route that reads the KV through the process' adapters. */
const frontDoor: ServiceModule = {
  name: 'gateway',
  serves: true,
  async start({ adapters }) {
    const router = Router();
    router.get(
      '/v1/probe/:key',
      async (req, res) => void res.json({ value: await adapters.kv.get(`seen:${req.params.key}`) }),
    );
    return { router, stop: async () => {} };
  },
};

async function poll<T>(probe: () => Promise<T>, done: (v: T) => boolean, what: string): Promise<T> {
  for (let i = 0; i < 200; i++) {
    const v = await probe();
    if (done(v)) return v;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe('the pipeline thread of an embedded all-in-one process (issue 14)', function () {
  this.timeout(60_000);

  describe('which services move', () => {
    const base = { SPOOR_DATA_DIR: '/nonexistent', SPOOR_SERVICES: 'gateway,enricher' };
    it('moves the consumers that name their file, when the process also serves HTTP and runs embedded', () => {
      expect(threadable(loadConfig(base), [frontDoor, probeConsumerModule])).to.deep.equal([probeConsumerModule]);
    });
    it('keeps one thread with SPOOR_PIPELINE_THREAD=main, with embedded and network adapters mixed, or with nothing left for HTTP', () => {
      expect(
        threadable(loadConfig({ ...base, SPOOR_PIPELINE_THREAD: 'main' }), [frontDoor, probeConsumerModule]),
      ).to.deep.equal([]);
      expect(
        threadable(loadConfig({ ...base, SPOOR_KAFKA_BROKERS: '127.0.0.1:9092' }), [frontDoor, probeConsumerModule]),
      ).to.deep.equal([]);
      expect(
        threadable(loadConfig({ ...base, SPOOR_CLICKHOUSE_URL: 'http://127.0.0.1:8123' }), [
          frontDoor,
          probeConsumerModule,
        ]),
      ).to.deep.equal([]);
      expect(
        threadable(loadConfig({ ...base, SPOOR_REDIS_URL: 'redis://127.0.0.1:6379' }), [
          frontDoor,
          probeConsumerModule,
        ]),
      ).to.deep.equal([]);
      expect(threadable(loadConfig(base), [probeConsumerModule])).to.deep.equal([]);
    });
    it('moves them too on Kafka, ClickHouse and Redis together, where each thread opens its own clients', () => {
      const network = loadConfig({
        ...base,
        SPOOR_KAFKA_BROKERS: '127.0.0.1:9092',
        SPOOR_CLICKHOUSE_URL: 'http://127.0.0.1:8123',
        SPOOR_REDIS_URL: 'redis://127.0.0.1:6379',
      });
      expect(threadable(network, [frontDoor, probeConsumerModule])).to.deep.equal([probeConsumerModule]);
      expect(ownAdapters(network)).to.equal(true);
      expect(ownAdapters(loadConfig(base))).to.equal(false);
    });
    it('refuses an unknown SPOOR_PIPELINE_THREAD', () => {
      expect(() => loadConfig({ ...base, SPOOR_PIPELINE_THREAD: 'both' })).to.throw(/SPOOR_PIPELINE_THREAD/);
    });
  });

  describe('running', () => {
    let proc: RunningProcess;
    before(async () => {
      const config = loadConfig({
        SPOOR_DATA_DIR: await makeTempDir('runtime'),
        SPOOR_PORT: '0',
        SPOOR_SERVICES: 'gateway,enricher',
        SPOOR_LOG_LEVEL: 'silent',
      });
      proc = await runServices(config, [frontDoor, probeConsumerModule], createLogger('test', 'silent'));
    });
    after(async () => proc?.stop());

    it('delivers what this thread publishes to the consumer there, retrying a failed batch, into the KV and store both threads see', async () => {
      await proc.adapters.bus.publish(PROBE_TOPIC, [
        { key: 'a', value: 'one' },
        { key: 'b', value: 'fail-once' },
        { key: 'c', value: 'three' },
      ]);
      const read = async (key: string) =>
        ((await (await fetch(`${proc.http!.url}/v1/probe/${key}`)).json()) as { value: string | null }).value;
      await poll(
        () => read('c'),
        (v) => v === 'three',
        'the consumer',
      );
      expect([await read('a'), await read('b'), await read('c'), await read('zz')]).to.deep.equal([
        'one',
        'fail-once',
        'three',
        null,
      ]);
      const stored = await proc.adapters.store.records.get<{ value: string }>('probe', '', 'b');
      expect(stored?.data).to.deep.equal({ value: 'fail-once' });
    });

    it('runs the consumer on another thread and reports its counters in /healthz and its batches in /metrics', async () => {
      type Healthz = { counters: Record<string, number>; lag: Record<string, number> };
      const health = await poll(
        async () => (await (await fetch(`${proc.http!.url}/healthz`)).json()) as Healthz,
        (h) => h.counters['handled'] === 3,
        'the counters',
      );
      expect(health.counters['probe_thread']).to.be.a('number').and.not.equal(threadId);
      expect(health.lag).to.deep.equal({ [`${PROBE_TOPIC}/probe`]: 0 });
      const metrics = await (await fetch(`${proc.http!.url}/metrics`)).text();
      // Two batches failed-then-ok or one: at least one ok batch, and the one failure, from the other thread's registry.
      expect(metrics).to.match(
        /^spoor_consumer_batch_duration_seconds_count\{topic="probe\.events",group="probe",outcome="failed"\} 1$/m,
      );
      expect(metrics).to.match(/^spoor_service_counter\{service="enricher",counter="handled"\} 3$/m);
    });

    it('rebuilds the store errors callers test for', async () => {
      const project = {
        project_id: 'p-1',
        origin: 'https://a.example',
        project: 'web',
        account_id: 'acct',
        verified: false,
        verification_token: 't',
        created_at: 1,
      };
      await proc.adapters.store.projects.create(project);
      const second = await proc.adapters.store.projects.create({ ...project, project_id: 'p-2' }).then(
        () => null,
        (err: unknown) => err,
      );
      expect(second).to.be.instanceOf(StoreConflictError);
      expect((second as Error).message)
        .to.be.a('string')
        .and.not.equal('');
      expect(await proc.adapters.store.projects.get('p-1')).to.deep.include({
        origin: 'https://a.example',
        project: 'web',
      });
    });
  });
});
