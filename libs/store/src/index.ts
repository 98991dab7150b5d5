export * from './store.js';
export * from './data-ownership.js';
export * from './funnel-query.js';
export * from './live-query.js';
export type { AuditListQuery, AuditRecord, AuditRepository } from './audit.js';
export {
  accountProjects,
  type InvitationRecord,
  type MemberChange,
  type MemberRecord,
  type MemberRepository,
} from './members.js';
export {
  StatsPatternError,
  statsKey,
  type StatsAnswerRow,
  type StatsRepository,
  type StatsRows,
  type StatsSpec,
} from './stats-query.js';
export { eventCode, firstReaches, medianOf } from './funnel-tally.js';
export { BUILT_IN_ISSUER } from './account-row.js';
export { openStore, type StoreOptions } from './open-store.js';
export { DuckDbStore, type DuckDbStoreOptions } from './duckdb/duckdb-store.js';
export { exportDirBeside, openExportFile } from './duckdb/export-repository.js';
export { ClickHouseStore, type ClickHouseStoreOptions } from './clickhouse/clickhouse-store.js';
export { checkIdentifier } from './clickhouse/clickhouse-connection.js';
export { duckdbMigrations, type DuckMigration } from './duckdb/migrations.js';
export { clickhouseMigrations, type ClickHouseMigration } from './clickhouse/migrations.js';
export {
  StoreChangeFeed,
  announcingStore,
  type CredentialMark,
  type MarkedWrites,
  type StoreChange,
  type StoreChangeListener,
} from './store-changes.js';
export { cachingStore, type RecordCacheOptions } from './record-cache.js';
