export * from './store.js';
export * from './data-ownership.js';
export { BUILT_IN_ISSUER } from './account-row.js';
export { openStore, type StoreOptions } from './open-store.js';
export { DuckDbStore, type DuckDbStoreOptions } from './duckdb/duckdb-store.js';
export { ClickHouseStore, type ClickHouseStoreOptions } from './clickhouse/clickhouse-store.js';
export { checkIdentifier } from './clickhouse/clickhouse-connection.js';
export { duckdbMigrations, type DuckMigration } from './duckdb/migrations.js';
export { clickhouseMigrations, type ClickHouseMigration } from './clickhouse/migrations.js';
