// The embedded store's idempotency (migration step 9): `event_keys` remembers the latest events'
// keys, up to twice the window, so DuckDB's in-memory index stays bounded however many events
// the store holds; a repeat of a remembered event is stored once, in either write path.
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { makeTempDir } from '@spoor/testkit';
import { expect } from 'chai';
import type { EventPair } from '../src/store.js';
import { openStore, type Store } from '../src/index.js';
import { T0, enriched, raw } from './store-fixtures.js';

const WINDOW = 1_000;
const pair = (i: number, over: { project_id?: string; session_id?: string } = {}): EventPair => {
  const e = { event_id: `k${i}`, timestamp: T0 + i * 1_000, ...over };
  return { raw: raw(e), enriched: enriched(e) };
};

describe('DuckDB event keys (step 9: the latest events remembered)', function () {
  this.timeout(60_000);
  let dir: string;
  let path: string;
  let store: Store;

  beforeEach(async function () {
    dir = await makeTempDir('spoor-event-keys-');
    path = join(dir, 'spoor.duckdb');
    store = await openStore({ kind: 'duckdb', path, keyWindow: WINDOW });
    await store.migrate();
  });
  afterEach(async function () {
    await store.close();
    await rm(dir, { recursive: true, force: true });
  });

  async function keysHeld(): Promise<{ n: number; lo: number }> {
    await store.close();
    const db = await DuckDBInstance.create(path);
    const c = await db.connect();
    try {
      const [row] = (
        await c.runAndReadAll(`SELECT count(*)::INTEGER AS n, min("timestamp")::BIGINT AS lo FROM event_keys`)
      ).getRowObjectsJS();
      return { n: Number(row!.n), lo: Number(row!.lo) };
    } finally {
      c.closeSync();
      db.closeSync();
      store = await openStore({ kind: 'duckdb', path, keyWindow: WINDOW });
    }
  }

  it('keeps at most twice the window of keys through five windows of events, the latest ones', async function () {
    for (let b = 0; b < 25; b++) {
      await store.events.insertEvents(Array.from({ length: 200 }, (_, j) => pair(b * 200 + j)));
    }
    expect(await store.events.countEnriched('p-a')).to.equal(5_000);
    const { n, lo } = await keysHeld();
    expect(n).to.be.within(WINDOW, 2 * WINDOW);
    // The keys kept are the latest: none older than the last 2 × WINDOW events.
    expect(lo).to.be.at.least(T0 + (5_000 - 2 * WINDOW) * 1_000);
  });

  it('cuts back to the latest window also when erasures left gaps among the keys', async function () {
    await store.events.insertEvents(Array.from({ length: 1_000 }, (_, i) => pair(i, { session_id: 'gone' })));
    await store.events.insertEvents(Array.from({ length: 900 }, (_, i) => pair(1_000 + i)));
    await store.erasure.eraseVisitor('p-a', { session_id: 'gone' });
    // 900 keys left; 1,100 more reach twice the window, and the cut keeps the latest 1,000.
    await store.events.insertEvents(Array.from({ length: 1_100 }, (_, i) => pair(1_900 + i)));
    const { n, lo } = await keysHeld();
    expect(n).to.equal(WINDOW);
    expect(lo).to.equal(T0 + 2_000 * 1_000);
  });

  it('stores a repeat of a remembered event once, in a replayed batch and alone, raw half or whole', async function () {
    const batch = Array.from({ length: 1_500 }, (_, i) => pair(i));
    await store.events.insertEvents(batch);
    await store.events.insertEvents(batch.slice(1_000, 1_100));
    await store.events.insertEvents([pair(1_499), pair(1_500)]);
    await store.events.insertRaw([batch[1_200]!.raw]);
    expect(await store.events.countRaw('p-a')).to.equal(1_501);
    expect(await store.events.countEnriched('p-a')).to.equal(1_501);
  });

  it('fills the half a remembered event lacks, and leaves its other half as first written', async function () {
    const first = raw({ event_id: 'half', timestamp: T0, url: 'https://a.example/raw?x=1' });
    await store.events.insertRaw([first]);
    await store.events.insertEnriched([enriched({ event_id: 'half', timestamp: T0, url: 'https://a.example/enr' })]);
    await store.events.insertRaw([raw({ event_id: 'half', timestamp: T0, url: 'https://a.example/later' })]);
    expect(await store.events.listRaw('p-a', { limit: 10 })).to.deep.equal([first]);
    const [e] = await store.events.listEnriched('p-a', { limit: 10 });
    expect(e!.url).to.equal('https://a.example/enr');
  });

  it('stores a repeat of an event again once its key has left the window (the documented bound)', async function () {
    await store.events.insertEvents([pair(0)]);
    for (let b = 1; b <= 3; b++) {
      await store.events.insertEvents(Array.from({ length: WINDOW }, (_, j) => pair(b * WINDOW + j)));
    }
    await store.events.insertEvents([pair(0), pair(3 * WINDOW + 5)]);
    expect(await store.events.countEnriched('p-a')).to.equal(3 * WINDOW + 2);
  });

  it('forgets the keys of erased and expired events, so that their repeats are stored again', async function () {
    await store.events.insertEvents([
      pair(1, { session_id: 'gone' }),
      pair(2, { session_id: 'kept' }),
      pair(3, { project_id: 'p-old' }),
    ]);
    await store.erasure.eraseVisitor('p-a', { session_id: 'gone' });
    await store.expiry.expire('p-old', T0 + 10_000);
    await store.events.insertEvents([
      pair(1, { session_id: 'gone' }),
      pair(2, { session_id: 'kept' }),
      pair(3, { project_id: 'p-old' }),
    ]);
    expect(await store.events.countEnriched('p-a')).to.equal(2);
    expect(await store.events.countEnriched('p-old')).to.equal(1);
    expect((await keysHeld()).n).to.equal(3);
  });
});
