// ClickHouse backend: the system of record in split mode (DESIGN.md, Architecture). Everything
// goes through @clickhouse/client over HTTP with JSONEachRow, and every value is a bound
// `{name:Type}` query parameter; the only name spliced into SQL is the database, checked
// against an identifier pattern. There are no unique constraints or upserts, so each table is
// a ReplacingMergeTree whose sorting key is the identity of a row (see migrations.ts for the
// keys and the read paths) and every read says FINAL, which collapses versions not yet merged
// in the background: a duplicate insert never shows (tag facts and session counts aggregate
// instead, which gives FINAL's answer without the merge; see their repositories). FINAL costs
// a merge of the rows read at query time; the reads here are narrowed to one project's key
// range first. Migrations are
// idempotent statements recorded in schema_migrations (itself a ReplacingMergeTree, so two
// processes recording the same step leave one row).
import type { Store } from '../store.js';
import { ClickHouseAnalyticsRepository } from './analytics-repository.js';
import { ClickHouseRecordRepository } from './record-repository.js';
import { ClickHouseFunnelRepository } from './funnel-repository.js';
import { ClickHouseRetentionRepository } from './retention-repository.js';
import { ClickHouseLiveRepository } from './live-repository.js';
import { ClickHouseStatsRepository } from './stats-repository.js';
import { ClickHouseAccountRepository } from './account-repository.js';
import { ClickHouseMemberRepository } from './member-repository.js';
import { ClickHouseAuditRepository } from './audit-repository.js';
import { ClickHouseApiKeyRepository } from './api-key-repository.js';
import { ClickHouseClassificationRepository } from './classification-repository.js';
import { ClickHouseConnection, type ClickHouseConnectionOptions } from './clickhouse-connection.js';
import { ClickHouseEventRepository } from './event-repository.js';
import { ClickHouseExportRepository } from './export-repository.js';
import { ClickHouseProjectErasure } from './project-erasure.js';
import { ClickHouseDataExpiry } from './data-expiry.js';
import { ClickHouseJobRepository } from './job-repository.js';
import { clickhouseBootstrap, clickhouseMigrations } from './migrations.js';
import { ClickHouseProjectRepository } from './project-repository.js';
import { ClickHouseRuleRepository } from './rule-repository.js';
import { ClickHouseSessionRepository } from './session-repository.js';
import { ClickHouseRevokedTokenRepository } from './revoked-token-repository.js';
import { ClickHouseSigningKeyRepository } from './signing-key-repository.js';
import { ClickHouseTagRepository } from './tag-repository.js';

export type ClickHouseStoreOptions = ClickHouseConnectionOptions;

/** Codes a concurrent `CREATE … IF NOT EXISTS` can still raise when another process won. */
const ALREADY_EXISTS = new Set(['57', '82', 'TABLE_ALREADY_EXISTS', 'DATABASE_ALREADY_EXISTS']);

export class ClickHouseStore implements Store {
  readonly kind = 'clickhouse' as const;
  readonly projects: ClickHouseProjectRepository;
  readonly events: ClickHouseEventRepository;
  readonly sessions: ClickHouseSessionRepository;
  readonly accounts: ClickHouseAccountRepository;
  readonly members: ClickHouseMemberRepository;
  readonly audit: ClickHouseAuditRepository;
  readonly apiKeys: ClickHouseApiKeyRepository;
  readonly signingKeys: ClickHouseSigningKeyRepository;
  readonly revokedTokens: ClickHouseRevokedTokenRepository;
  readonly tags: ClickHouseTagRepository;
  readonly rules: ClickHouseRuleRepository;
  readonly classifications: ClickHouseClassificationRepository;
  readonly jobs: ClickHouseJobRepository;
  readonly analytics: ClickHouseAnalyticsRepository;
  readonly records: ClickHouseRecordRepository;
  readonly funnels: ClickHouseFunnelRepository;
  readonly retention: ClickHouseRetentionRepository;
  readonly live: ClickHouseLiveRepository;
  readonly stats: ClickHouseStatsRepository;
  readonly exports: ClickHouseExportRepository;
  readonly erasure: ClickHouseProjectErasure;
  readonly expiry: ClickHouseDataExpiry;

  private constructor(private readonly ch: ClickHouseConnection) {
    this.projects = new ClickHouseProjectRepository(ch);
    this.events = new ClickHouseEventRepository(ch);
    this.sessions = new ClickHouseSessionRepository(ch);
    this.accounts = new ClickHouseAccountRepository(ch);
    this.members = new ClickHouseMemberRepository(ch);
    this.audit = new ClickHouseAuditRepository(ch);
    this.apiKeys = new ClickHouseApiKeyRepository(ch);
    this.signingKeys = new ClickHouseSigningKeyRepository(ch);
    this.revokedTokens = new ClickHouseRevokedTokenRepository(ch);
    this.tags = new ClickHouseTagRepository(ch);
    this.rules = new ClickHouseRuleRepository(ch);
    this.classifications = new ClickHouseClassificationRepository(ch);
    this.jobs = new ClickHouseJobRepository(ch);
    this.analytics = new ClickHouseAnalyticsRepository(ch);
    this.records = new ClickHouseRecordRepository(ch);
    this.funnels = new ClickHouseFunnelRepository(ch);
    this.retention = new ClickHouseRetentionRepository(ch);
    this.live = new ClickHouseLiveRepository(ch);
    this.stats = new ClickHouseStatsRepository(ch);
    this.exports = new ClickHouseExportRepository(ch);
    this.erasure = new ClickHouseProjectErasure(ch);
    this.expiry = new ClickHouseDataExpiry(ch);
  }

  static async connect(opts: ClickHouseStoreOptions): Promise<ClickHouseStore> {
    const ch = ClickHouseConnection.create(opts);
    try {
      await ch.ping();
    } catch (err) {
      await ch.close();
      throw err;
    }
    return new ClickHouseStore(ch);
  }

  async migrate(): Promise<void> {
    const db = this.ch.database;
    for (const sql of clickhouseBootstrap(db)) await this.ddl(sql);
    const applied = new Set(
      (await this.ch.rows(`SELECT version FROM ${this.ch.table('schema_migrations')} FINAL`)).map((r) =>
        Number(r.version),
      ),
    );
    for (const m of clickhouseMigrations) {
      if (applied.has(m.version)) continue;
      for (const sql of m.statements(db)) await this.ddl(sql);
      await this.ch.insert('schema_migrations', [{ version: m.version, name: m.name, applied_at: Date.now() }]);
    }
  }

  async sizeBytes(): Promise<number> {
    const [row] = await this.ch.rows(
      'SELECT sum(bytes_on_disk) AS bytes FROM system.parts WHERE database = {db:String} AND active',
      { db: this.ch.database },
    );
    return Number(row?.bytes ?? 0);
  }

  async memoryBytes(): Promise<Record<string, number>> {
    return {};
  }

  close(): Promise<void> {
    return this.ch.close();
  }

  private async ddl(sql: string): Promise<void> {
    try {
      await this.ch.command(sql);
    } catch (err) {
      const code = (err as { code?: unknown }).code;
      if (!ALREADY_EXISTS.has(String(code))) throw err;
    }
  }
}
