// The sessionizer keeps the states it wrote beside their text (issue 14) and uses the object
// only while the KV still holds that text: another writer's change wins, and a failed batch
// leaves nothing half-applied behind.
import { join } from 'node:path';
import { rm } from 'node:fs/promises';
import { expect } from 'chai';
import { MemoryKv } from '@spoor/kv';
import type { DeliveredMessage } from '@spoor/bus';
import {
  formatRawPosition,
  openSessionKey,
  RAW_POSITION_HEADER,
  type EnrichedEvent,
  type SessionInput,
} from '@spoor/schemas';
import { openStore, type Store } from '@spoor/store';
import { makeTempDir } from '@spoor/testkit';
import { SessionizerService } from '../src/sessionizer-service.js';

const T0 = Date.UTC(2026, 10, 25, 9);
const NO_NAME = { name: null, version: null };

function input(i: number, sessionId = 'S'): SessionInput {
  const event: EnrichedEvent = {
    project_id: 'p-1',
    event_id: `e-${i}`,
    project: 'acme/web',
    origin: 'https://acme.example',
    action: i % 2 ? 'click' : 'view',
    timestamp: T0 + i * 1000,
    client_timestamp: T0 + i * 1000,
    sent_at: null,
    received_at: T0 + i * 1000,
    payload: { i },
    session_id: sessionId,
    url: `https://acme.example/p${i}`,
    referrer: null,
    ip: '203.0.113.9',
    user_agent: 'Mozilla/5.0 Firefox/133.0',
    geo: { country: null, region: null, city: null, latitude: null, longitude: null },
    browser: NO_NAME,
    os: NO_NAME,
    device: { type: null, vendor: null, model: null },
    bot: false,
    path: `/p${i}`,
    query: {},
    utm: { source: null, medium: null, campaign: null, term: null, content: null },
  };
  return { event, source: 'events.raw/0', offset: i * 10 };
}

describe('SessionizerService', function () {
  this.timeout(60_000);
  let dir: string;
  let store: Store;
  let kv: MemoryKv;
  let failUpserts: number;
  let service: SessionizerService;

  beforeEach(async function () {
    dir = await makeTempDir('spoor-sessionizer-');
    store = await openStore({ kind: 'duckdb', path: join(dir, 'spoor.duckdb') });
    await store.migrate();
    kv = new MemoryKv();
    failUpserts = 0;
    // The fault: the summaries' write fails (a full disk), after the states were changed in place.
    const upsert = store.sessions.upsert.bind(store.sessions);
    store.sessions.upsert = async (states) => {
      if (failUpserts > 0 && failUpserts-- > 0) throw new Error('injected write failure');
      return upsert(states);
    };
    service = new SessionizerService({ store, kv, clock: () => T0 });
  });

  afterEach(async function () {
    await store.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('counts each event once across batches, from the states it kept', async function () {
    await service.apply([input(1), input(2)]);
    await service.apply([input(3)]);
    await service.apply([input(2), input(3)]); // a replay
    const s = await store.sessions.get('p-1', 'S');
    expect(s).to.deep.include({
      event_count: 3,
      first_event_at: T0 + 1000,
      last_event_at: T0 + 3000,
      exit_url: 'https://acme.example/p3',
    });
  });

  it("reads the KV's state when another writer changed it, not the one it kept", async function () {
    await service.apply([input(1), input(2)]);
    // A backfill rewrites the session with an attribute and drops the open state (backfill-job.ts).
    const stored = (await store.sessions.get('p-1', 'S'))!;
    await store.sessions.upsert([{ ...stored, attributes: { plan: 'team' } }]);
    await kv.del(openSessionKey('p-1', 'S'));
    await service.apply([input(3)]);
    expect(await store.sessions.get('p-1', 'S')).to.deep.include({ event_count: 3, attributes: { plan: 'team' } });
    // Another sessionizer, after a rebalance, writes its own state of the session into the KV.
    const key = openSessionKey('p-1', 'S');
    const theirs = JSON.parse((await kv.get(key))!) as Record<string, unknown>;
    await kv.set(key, JSON.stringify({ ...theirs, attributes: { plan: 'enterprise' } }));
    await service.apply([input(4)]);
    expect(await store.sessions.get('p-1', 'S')).to.deep.include({
      event_count: 4,
      attributes: { plan: 'enterprise' },
    });
  });

  it('applies a failed batch again in full when it is redelivered', async function () {
    await service.apply([input(1)]);
    failUpserts = 1;
    let failed = false;
    await service.apply([input(2), input(3)]).catch(() => (failed = true));
    expect(failed).to.equal(true);
    await service.apply([input(2), input(3)]);
    const s = await store.sessions.get('p-1', 'S');
    expect(s).to.deep.include({ event_count: 3, last_event_at: T0 + 3000 });
  });

  // Issue 43: events of one millisecond are applied by event id, whatever order they came in.
  it('gives the same summary and attributes to the same events in any order, across batches and the store', async function () {
    await store.rules.put({
      project_id: 'p-1',
      rule_id: 'landing',
      version: 1,
      kind: 'attribute',
      logic: true,
      attribute: 'page',
      value: { var: 'path' },
      tags: [],
      label: null,
      description: null,
      enabled: true,
      created_at: T0,
      updated_at: T0,
      updated_by: 'acct-1',
    });
    const tied = (i: number, sessionId: string) => {
      const x = input(i, sessionId);
      x.event.timestamp = T0;
      return x;
    };
    await service.apply([tied(2, 'A'), tied(1, 'A')]);
    await service.apply([tied(1, 'B')]);
    await kv.deletePrefixes([openSessionKey('p-1', '')]); // B's state now comes from the store
    await service.apply([tied(2, 'B')]);
    const [a, b] = await store.sessions.getMany('p-1', ['A', 'B']);
    for (const s of [a, b])
      expect(s, s?.session_id).to.deep.include({
        entry_url: 'https://acme.example/p1',
        exit_url: 'https://acme.example/p2',
        attributes: { page: '/p2' },
      });
  });

  // Issue 16 (CI found it in test/faults/rebalance.test.ts): an enricher killed before it
  // committed leaves its output on events.enriched; the survivor publishes the same events again
  // at new enriched offsets. More than the 64 ids a session remembers must still count once.
  describe('an enricher replay on the enriched topic', function () {
    const N = 150;
    /** Events 0..N-1 of session S as enriched messages from `at` on, naming their raw positions. */
    /** `sameMs`: every event in one millisecond, so that ordering by time keeps a copy far from its first. */
    const published = (at: number, from = 0, to = N, sameMs = false): DeliveredMessage[] =>
      Array.from({ length: to - from }, (_, k) => {
        const { event, source, offset } = input(from + k);
        if (sameMs) event.timestamp = T0;
        return {
          topic: 'events.enriched',
          partition: 3,
          offset: String(at + k),
          key: 'p-1:S',
          value: JSON.stringify(event),
          headers: { [RAW_POSITION_HEADER]: formatRawPosition(source, offset) },
        };
      });

    it('counts each event once when the replay comes in a later batch', async function () {
      await service.handle(published(0));
      await service.handle(published(N, 20)); // the survivor restarts from the enricher's commit at 20
      const s = await store.sessions.get('p-1', 'S');
      expect(s?.event_count).to.equal(N);
      expect(service.stats()['repeats']).to.equal(N - 20);
    });

    it('counts each event once when both copies are in one batch', async function () {
      // Sorted by time, the copies of one millisecond stay apart by N events, past the 64 ids a session remembers.
      await service.handle([...published(0, 0, N, true), ...published(N, 0, N, true)]);
      const s = await store.sessions.get('p-1', 'S');
      expect(s?.event_count).to.equal(N);
    });

    it('counts each event once when the KV lost the state and it is read from the store', async function () {
      await service.handle(published(0));
      await kv.deletePrefixes([openSessionKey('p-1', '')]);
      await service.handle(published(N, 10));
      const s = await store.sessions.get('p-1', 'S');
      expect(s?.event_count).to.equal(N);
    });
  });
});
