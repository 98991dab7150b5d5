// An embedded store made by an earlier release keeps its data through the later steps: step 6
// copies raw_events and enriched_events into tables keyed by a hash of (project_id, event_id).
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { makeTempDir } from '@spoor/testkit';
import { expect } from 'chai';
import { ENRICHED_EVENT_COLUMNS, RAW_EVENT_COLUMNS, enrichedEventToRow, rawEventToRow } from '../src/event-row.js';
import { DUCKDB_MIGRATIONS_TABLE, duckdbMigrations } from '../src/duckdb/migrations.js';
import { openStore } from '../src/index.js';
import { T0, enriched, raw } from './store-fixtures.js';

const cell = (v: unknown) => (typeof v === 'object' && v !== null ? JSON.stringify(v) : v) as string | number | boolean | null;

async function insertRow(c: Awaited<ReturnType<DuckDBInstance['connect']>>, table: string, cols: readonly string[], row: Record<string, unknown>) {
  const marks = cols.map((_, i) => `$${i + 1}`).join(', ');
  await c.run(`INSERT INTO ${table} (${cols.map((n) => `"${n}"`).join(', ')}) VALUES (${marks})`, cols.map((n) => cell(row[n])));
}

describe('DuckDB migrations', function () {
  let dir: string;
  beforeEach(async function () {
    dir = await makeTempDir('spoor-migrate-');
  });
  afterEach(async function () {
    await rm(dir, { recursive: true, force: true });
  });

  it('keeps the events of a step-5 store through the re-keying, and still stores a repeat once', async function () {
    const path = join(dir, 'spoor.duckdb');
    const old = await DuckDBInstance.create(path);
    const c = await old.connect();
    await c.run(DUCKDB_MIGRATIONS_TABLE);
    for (const m of duckdbMigrations.filter((s) => s.version <= 5)) {
      for (const sql of m.statements) await c.run(sql);
      await c.run('INSERT INTO schema_migrations VALUES ($1, $2, $3)', [m.version, m.name, T0]);
    }
    const before = [raw({ event_id: 'kept-1' }), raw({ event_id: 'kept-2', project_id: 'p-b', timestamp: T0 + 1 })];
    for (const e of before) {
      await insertRow(c, 'raw_events', RAW_EVENT_COLUMNS, rawEventToRow(e));
      await insertRow(c, 'enriched_events', ENRICHED_EVENT_COLUMNS, enrichedEventToRow(enriched({ ...e, session_id: 's-1' })));
    }
    c.closeSync();
    old.closeSync();

    const store = await openStore({ kind: 'duckdb', path });
    try {
      await store.migrate();
      expect((await store.events.listRaw('p-a', { limit: 10 })).map((e) => e.event_id)).to.deep.equal(['kept-1']);
      expect((await store.events.listEnriched('p-b', { limit: 10 }))[0]).to.deep.include({ event_id: 'kept-2', timestamp: T0 + 1, payload: { n: 1 } });

      // The same ids again (a replay), beside a new one and the same id in another project.
      await store.events.insertEvents([
        { raw: before[0]!, enriched: enriched({ event_id: 'kept-1' }) },
        { raw: raw({ event_id: 'new-1' }), enriched: enriched({ event_id: 'new-1' }) },
        { raw: raw({ event_id: 'kept-1', project_id: 'p-c' }), enriched: enriched({ event_id: 'kept-1', project_id: 'p-c' }) },
      ]);
      await store.events.insertRaw([before[1]!]);
      expect(await store.events.countRaw('p-a')).to.equal(2);
      expect(await store.events.countEnriched('p-a')).to.equal(2);
      expect(await store.events.countRaw('p-b')).to.equal(1);
      expect(await store.events.countEnriched('p-c')).to.equal(1);
    } finally {
      await store.close();
    }
  });
});
