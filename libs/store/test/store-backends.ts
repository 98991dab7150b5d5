// The backends the contract runs against: DuckDB in a temp dir, ClickHouse from @spoor/testkit
// (a local chDB-backed server, or SPOOR_CLICKHOUSE_URL) in a fresh database per run.
import { randomBytes } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { createClient } from '@clickhouse/client';
import { clickhouseUrl, makeTempDir, requireEngine } from '@spoor/testkit';
import { openStore, type Store } from '../src/index.js';

export interface Opened {
  store: Store;
  cleanup(): Promise<void>;
}

export interface Backend {
  name: string;
  /** Opens a fresh, empty store, or skips the suite (requireEngine) when the engine is missing. */
  open(ctx: Mocha.Context): Promise<Opened>;
}

export const backends: Backend[] = [
  {
    name: 'duckdb',
    async open() {
      const dir = await makeTempDir('spoor-store-');
      const store = await openStore({ kind: 'duckdb', path: join(dir, 'db', 'spoor.duckdb') });
      return {
        store,
        async cleanup() {
          await store.close();
          await rm(dir, { recursive: true, force: true });
        },
      };
    },
  },
  {
    name: 'clickhouse',
    async open(ctx) {
      const url = await clickhouseUrl();
      requireEngine(ctx, url, 'clickhouse');
      const database = `spoor_test_${randomBytes(6).toString('hex')}`;
      const store = await openStore({ kind: 'clickhouse', url, database });
      return {
        store,
        async cleanup() {
          await store.close();
          const admin = createClient({ url, compression: { request: false, response: false } });
          try {
            await admin.command({ query: `DROP DATABASE IF EXISTS ${database}` });
          } finally {
            await admin.close();
          }
        },
      };
    },
  },
];

/**
 * The suite's store: `backend.open` and `migrate` before the suite's other `before` hooks (call it
 * where they would go), `cleanup` after it. `use` gets the store once it is ready.
 */
export function migratedStore(backend: Backend, use: (store: Store) => void): void {
  let opened: Opened | undefined;
  before(async function () {
    opened = await backend.open(this);
    await opened.store.migrate();
    use(opened.store);
  });
  after(async function () {
    await opened?.cleanup();
    opened = undefined;
  });
}
