import { expect } from 'chai';
import { loadConfig } from '@spoor/config';
import { createLogger } from '@spoor/service-log';
import { makeTempDir } from '@spoor/testkit';
import {
  buildHealthReport,
  HEARTBEAT_KIND,
  LAG_PROBLEM,
  openAdapters,
  type Adapters,
  type Heartbeat,
} from '../src/index.js';

/** Health reports over real embedded adapters, with heartbeats written as processes would. */
describe('buildHealthReport', function () {
  this.timeout(60_000);
  let adapters: Adapters;
  const now = 1_800_000_000_000;
  const clock = () => now;

  const beat = (instance: string, services: string[], at: number, over: Partial<Heartbeat> = {}): Heartbeat => ({
    instance,
    services,
    started_at: now - 60_000,
    at,
    every_ms: 10_000,
    version: 'v1-0-gtest',
    stats: {},
    rates: {},
    consumes: [],
    ...over,
  });
  const put = (b: Heartbeat) =>
    adapters.store.records.put([
      {
        kind: HEARTBEAT_KIND,
        project_id: '',
        id: b.instance,
        parent_id: '',
        sort_key: b.at,
        data: b,
        updated_at: b.at,
        deleted: false,
      },
    ]);

  beforeEach(async () => {
    adapters = await openAdapters(
      loadConfig({ SPOOR_DATA_DIR: await makeTempDir('health'), SPOOR_LOG_LEVEL: 'error' }),
      createLogger('t', 'silent'),
    );
    await adapters.store.migrate();
  });
  afterEach(async () => adapters.close());

  it('is ok when every service has a live instance, summing ingest counters and rates over live instances', async () => {
    const all = ['ingest', 'enricher', 'sessionizer', 'classifier', 'worker', 'gateway'];
    await put(
      beat('a', all, now - 5_000, {
        stats: { ingest: { accepted: 100, rejected: 2, publish_failures: 0 } },
        rates: { ingest: { accepted: 12.5, publish_failures: 0 } },
        dropped: {
          ingest: { invalid: 2 },
          enricher: { duplicate: 3, malformed: 1 },
          sessionizer: { bot: 4, repeat: 1 },
        },
      }),
    );
    await put(
      beat('b', ['ingest'], now - 1_000, {
        stats: { ingest: { accepted: 50, rejected: 0, publish_failures: 0 } },
        rates: { ingest: { accepted: 7.5 } },
        dropped: { ingest: { rate_limited: 5 } },
      }),
    );
    await put(
      beat('dead', ['ingest'], now - 600_000, {
        stats: { ingest: { accepted: 9_999 } },
        dropped: { ingest: { invalid: 9_999 } },
      }),
    );
    const r = await buildHealthReport({ store: adapters.store, bus: adapters.bus, clock, version: 'v9' });
    expect(r.status).to.equal('ok');
    expect(r.problems).to.deep.equal([]);
    expect(r.ingest).to.deep.equal({
      accepted_total: 150,
      rejected_total: 2,
      publish_failures_total: 0,
      rate_per_s: 20,
    });
    // Every reason of the catalogue, summed over live instances only.
    expect(r.dropped).to.deep.equal({
      invalid: 2,
      rate_limited: 5,
      unavailable: 0,
      malformed: 1,
      duplicate: 3,
      invalid_timestamp: 0,
      payload_too_deep: 0,
      bot: 4,
      repeat: 1,
    });
    const ingest = r.services.find((s) => s.name === 'ingest')!;
    expect(ingest.alive).to.equal(true);
    expect(ingest.instances.map((i) => [i.instance, i.alive])).to.have.deep.members([
      ['a', true],
      ['b', true],
      ['dead', false],
    ]);
    expect(r.uptime_ms).to.equal(60_000);
    expect(r.storage.kind).to.equal('duckdb');
  });

  it('is down without a live ingest, and names every missing service', async () => {
    await put(beat('old', ['ingest', 'gateway'], now - 600_000));
    await put(beat('gw', ['gateway'], now));
    const r = await buildHealthReport({ store: adapters.store, bus: adapters.bus, clock, version: 'v9' });
    expect(r.status).to.equal('down');
    expect(r.problems[0]).to.match(/^no live ingest instance \(last seen /);
    expect(r.problems).to.include('no enricher instance has reported');
  });

  it('answers degraded, with the services as last read, while the store cannot be read (issue 16)', async () => {
    const all = ['ingest', 'enricher', 'sessionizer', 'classifier', 'worker', 'gateway'];
    await put(beat('a', all, now - 1_000));
    expect(
      (await buildHealthReport({ store: adapters.store, bus: adapters.bus, clock, version: 'v9' })).status,
    ).to.equal('ok');
    // The fault: the store's reads fail as a ClickHouse that is away does (the same store object,
    // as the gateway keeps it).
    const store = adapters.store;
    const { records, sizeBytes } = { records: store.records.list, sizeBytes: store.sizeBytes };
    const refuse = async (): Promise<never> => {
      throw new Error('connect ECONNREFUSED');
    };
    store.records.list = refuse;
    store.sizeBytes = refuse;
    const failing = store;
    const later = () => now + 120_000; // past three heartbeat intervals: no heartbeat could be written
    const r = await buildHealthReport({ store: failing, bus: adapters.bus, clock: later, version: 'v9' });
    expect(r.status).to.equal('degraded');
    expect(r.problems).to.have.length(1);
    expect(r.problems[0]).to.match(/^the store \(duckdb\) cannot be read: connect ECONNREFUSED/);
    expect(
      r.services.every((s) => s.alive),
      'not declared dead because the store is',
    ).to.equal(true);
    expect(r.storage.size_bytes).to.equal(-1);
    store.records.list = records;
    store.sizeBytes = sizeBytes;
  });

  it('is degraded when a consumer group lags or ingest cannot publish', async () => {
    const topic = `lagging-${Date.now()}`;
    const batch = Array.from({ length: 1000 }, (_, i) => ({ key: String(i), value: 'x' }));
    for (let i = 0; i <= LAG_PROBLEM / 1000; i++) await adapters.bus.publish(topic, batch);
    const all = ['ingest', 'enricher', 'sessionizer', 'classifier', 'worker', 'gateway'];
    await put(
      beat('a', all, now, { consumes: [{ topic, group: 'slow-group' }], rates: { ingest: { publish_failures: 3 } } }),
    );
    const r = await buildHealthReport({ store: adapters.store, bus: adapters.bus, clock, version: 'v9' });
    expect(r.status).to.equal('degraded');
    expect(r.lag).to.deep.equal([{ topic, group: 'slow-group', lag: LAG_PROBLEM + 1000 }]);
    expect(r.problems).to.deep.equal([
      `consumer group slow-group is ${LAG_PROBLEM + 1000} messages behind on ${topic}`,
      'ingest fails to publish to the bus (3 per second)',
    ]);
  });
});
