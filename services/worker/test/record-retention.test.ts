import { expect } from 'chai';
import { join } from 'node:path';
import { MemoryKv } from '@spoor/kv';
import { HEARTBEAT_KIND, HEARTBEAT_RETENTION_MS } from '@spoor/runtime';
import { RECORD_KINDS } from '@spoor/schemas';
import { openStore, type Store } from '@spoor/store';
import { makeTempDir } from '@spoor/testkit';
import { DELIVERY_RETENTION_MS, HEALTH_RETENTION_MS, purgeExpiredRecords } from '../src/record-retention.js';

/** The hourly retention pass on a real DuckDB store: each kind keeps what its retention allows. */
describe('purgeExpiredRecords', function () {
  this.timeout(30_000);
  let store: Store;
  const now = 1_800_000_000_000;
  const record = (kind: string, id: string, age: number) => ({
    kind,
    project_id: '',
    id,
    parent_id: '',
    sort_key: now - age,
    data: {},
    updated_at: now - age,
    deleted: false,
  });
  const ids = async (kind: string) => (await store.records.list(kind, '', { limit: 100 })).map((r) => r.id).sort();

  before(async () => {
    store = await openStore({ kind: 'duckdb', path: join(await makeTempDir('retention'), 'spoor.duckdb') });
    await store.migrate();
  });
  after(async () => store?.close());

  it('drops deliveries, health snapshots and heartbeats past their retention, once an hour across workers', async () => {
    await store.records.put([
      record(RECORD_KINDS.delivery, 'delivery-old', DELIVERY_RETENTION_MS + 1),
      record(RECORD_KINDS.delivery, 'delivery-new', DELIVERY_RETENTION_MS - 60_000),
      record(RECORD_KINDS.health, 'health-old', HEALTH_RETENTION_MS + 1),
      record(RECORD_KINDS.health, 'health-new', HEALTH_RETENTION_MS - 60_000),
      record(HEARTBEAT_KIND, 'beat-old', HEARTBEAT_RETENTION_MS + 1),
      record(HEARTBEAT_KIND, 'beat-new', 10_000),
    ]);
    const kv = new MemoryKv();
    expect(await purgeExpiredRecords({ store, kv, clock: () => now, instance: 'w1' })).to.equal(true);
    expect(
      await purgeExpiredRecords({ store, kv, clock: () => now + 60_000, instance: 'w2' }),
      'the same hour, another worker',
    ).to.equal(false);
    expect(await ids(RECORD_KINDS.delivery)).to.deep.equal(['delivery-new']);
    expect(await ids(RECORD_KINDS.health)).to.deep.equal(['health-new']);
    expect(await ids(HEARTBEAT_KIND)).to.deep.equal(['beat-new']);
  });
});
