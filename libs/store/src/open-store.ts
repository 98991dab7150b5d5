import type { Store } from './store.js';
import { ClickHouseStore, type ClickHouseStoreOptions } from './clickhouse/clickhouse-store.js';
import { DuckDbStore, type DuckDbStoreOptions } from './duckdb/duckdb-store.js';

export type StoreOptions =
  ({ kind: 'duckdb' } & DuckDbStoreOptions) | ({ kind: 'clickhouse' } & ClickHouseStoreOptions);

/** Connects only; call `migrate()` before first use. */
export function openStore(opts: StoreOptions): Promise<Store> {
  return opts.kind === 'clickhouse' ? ClickHouseStore.connect(opts) : DuckDbStore.open(opts);
}
