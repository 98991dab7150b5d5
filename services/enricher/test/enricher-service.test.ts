// The enricher's batch on the embedded store: stored once and passed on in bus order, and a
// batch whose write fails replays whole, without a loss or a double.
import { join } from 'node:path';
import { rm } from 'node:fs/promises';
import { expect } from 'chai';
import type { DeliveredMessage } from '@spoor/bus';
import { createEnrichmentPipeline, EMPTY_GEO_LOOKUP } from '@spoor/enrich';
import { MemoryKv } from '@spoor/kv';
import { createLogger } from '@spoor/service-log';
import type { RawEvent, SessionInput } from '@spoor/schemas';
import { openStore, type Store } from '@spoor/store';
import { makeTempDir } from '@spoor/testkit';
import { localDedupWindow } from '../src/dedup-window.js';
import { EnricherService } from '../src/enricher-service.js';

const T0 = Date.UTC(2026, 10, 25, 9);

function message(i: number): DeliveredMessage {
  const raw: RawEvent = {
    project_id: 'p-1',
    event_id: `e-${i}`,
    project: 'acme/web',
    origin: 'https://acme.example',
    action: 'click',
    timestamp: T0 + i,
    client_timestamp: T0 + i,
    sent_at: null,
    received_at: T0 + i,
    payload: { i },
    session_id: `s-${i % 7}`,
    url: 'https://acme.example/a',
    referrer: null,
    ip: '203.0.113.9',
    user_agent: 'Mozilla/5.0 Firefox/133.0',
  };
  return { topic: 'events.raw', partition: 0, offset: String(i * 100), key: 'p-1', value: JSON.stringify(raw) };
}

describe('EnricherService', function () {
  this.timeout(60_000);
  let dir: string;
  let store: Store;
  let passedOn: SessionInput[];
  let failWrite: number | null;
  let writes: number;
  /** While set, a write waits for it before it starts (a slow commit). */
  let gate: Promise<void> | null;
  /** The next hand-over to the sessionizer fails once. */
  let failOutput: boolean;
  let service: EnricherService;

  beforeEach(async function () {
    dir = await makeTempDir('spoor-enricher-');
    store = await openStore({ kind: 'duckdb', path: join(dir, 'spoor.duckdb') });
    await store.migrate();
    passedOn = [];
    failWrite = null;
    gate = null;
    failOutput = false;
    // The fault: the n-th write of the store fails once (a full disk, a lost connection).
    writes = 0;
    const insertEvents = store.events.insertEvents.bind(store.events);
    store.events.insertEvents = async (pairs) => {
      const n = ++writes;
      await gate;
      if (n === failWrite) throw new Error('injected write failure');
      return insertEvents(pairs);
    };
    service = new EnricherService({
      store,
      kv: new MemoryKv(),
      dedup: localDedupWindow(),
      pipeline: createEnrichmentPipeline({ ipMode: 'full', ipSalt: 'salt', geo: EMPTY_GEO_LOOKUP, clock: () => T0 }),
      output: async (events) => {
        if (failOutput) {
          failOutput = false;
          throw new Error('injected hand-over failure');
        }
        passedOn.push(...events);
      },
      logger: createLogger('test', 'error', () => {}),
    });
  });

  afterEach(async function () {
    await store.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('stores a batch once and passes it on in the order of the bus', async function () {
    const batch = Array.from({ length: 2500 }, (_, i) => message(i));
    await service.handle(batch);
    expect(await store.events.countRaw('p-1')).to.equal(2500);
    expect(await store.events.countEnriched('p-1')).to.equal(2500);
    expect(passedOn.map((p) => p.offset)).to.deep.equal(batch.map((m) => Number(m.offset)));
  });

  it('fails the batch when it cannot be written, passes nothing on, and its replay loses and doubles nothing', async function () {
    const batch = Array.from({ length: 2500 }, (_, i) => message(i));
    failWrite = 1;
    let error: unknown;
    await service.handle(batch).catch((err: unknown) => {
      error = err;
    });
    expect(String(error)).to.contain('injected write failure');
    // Nothing went on: the batch is passed on once it is written.
    expect(passedOn).to.have.length(0);

    // The bus hands the same batch again (same positions): dedup lets it through, the store keeps one of each.
    await service.handle(batch);
    expect(await store.events.countRaw('p-1')).to.equal(2500);
    expect(await store.events.countEnriched('p-1')).to.equal(2500);
    expect(passedOn.map((p) => p.offset)).to.deep.equal(batch.map((m) => Number(m.offset)));
  });

  describe("with the next batch handed over before this one resolved (the bus's inFlight)", function () {
    const first = Array.from({ length: 2500 }, (_, i) => message(i));
    const second = Array.from({ length: 2500 }, (_, i) => message(2500 + i));

    it('enriches the next batch while this one is written, and writes and passes both on in bus order', async function () {
      let release!: () => void;
      gate = new Promise((resolve) => (release = resolve));
      const handled = [service.handle(first), service.handle(second)];
      // The first write is held: the second batch gets enriched meanwhile, but not written.
      while (service.stats()['enriched']! < 5000) await new Promise((resolve) => setTimeout(resolve, 5));
      expect(writes).to.equal(1);
      expect(passedOn).to.have.length(0);
      release();
      await Promise.all(handled);
      expect(writes).to.equal(2);
      expect(await store.events.countEnriched('p-1')).to.equal(5000);
      expect(passedOn.map((p) => p.offset)).to.deep.equal([...first, ...second].map((m) => Number(m.offset)));
    });

    it('fails the batch after a failed one without writing it, and both replay whole', async function () {
      failWrite = 1;
      const outcomes = await Promise.allSettled([service.handle(first), service.handle(second)]);
      expect(outcomes.map((o) => o.status)).to.deep.equal(['rejected', 'rejected']);
      expect(writes).to.equal(1);
      expect(passedOn).to.have.length(0);
      expect(await store.events.countRaw('p-1')).to.equal(0);

      // The bus delivers both again from the failed one, overlapping as before.
      await Promise.all([service.handle(first), service.handle(second)]);
      expect(await store.events.countRaw('p-1')).to.equal(5000);
      expect(await store.events.countEnriched('p-1')).to.equal(5000);
      expect(passedOn.map((p) => p.offset)).to.deep.equal([...first, ...second].map((m) => Number(m.offset)));
    });

    it('when passing a batch on fails, the next one (written meanwhile) is not passed on, and both replay once', async function () {
      failOutput = true;
      const outcomes = await Promise.allSettled([service.handle(first), service.handle(second)]);
      expect(outcomes.map((o) => o.status)).to.deep.equal(['rejected', 'rejected']);
      expect(passedOn).to.have.length(0);

      await Promise.all([service.handle(first), service.handle(second)]);
      expect(await store.events.countRaw('p-1')).to.equal(5000);
      expect(await store.events.countEnriched('p-1')).to.equal(5000);
      expect(passedOn.map((p) => p.offset)).to.deep.equal([...first, ...second].map((m) => Number(m.offset)));
    });
  });
});
