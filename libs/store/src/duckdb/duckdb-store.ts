// DuckDB backend: the embedded default (DESIGN.md, "Embedded default"). One DuckDBInstance per
// Store on one file; DuckDB lets a single process own a database file for writing, so two
// Stores on one path in one process are refused and migrations need no cross-process lock.
// Connections: one writer, a pool of readers (DuckDbReaderPool, two by default), one for
// analytics jobs and one that sets the engine's thread count (duckdb-threads.ts), each running
// one statement at a time through a promise queue (a connection
// runs one query at once). Writes are therefore serialised, which also keeps DuckDB's
// optimistic concurrency from aborting concurrent upserts of one key; reads proceed beside them
// on MVCC snapshots, several at once, and never wait behind a job's scan of millions of events
// (issue 15: a projects.get beside a 1 M-event transitions job waited 214 ms on the shared reader). Idempotency comes from primary keys: events
// `INSERT … ON CONFLICT DO NOTHING` (first write wins), sessions upsert when updated_at is not
// older, actions keep greatest(last_seen), tag facts, session classifications and jobs upsert
// when changed_at / classified_at / updated_at is not older, signing keys keep the first row of
// a kid; accounts, API keys and rule versions turn a key violation into StoreConflictError.
// Batches go through the Appender into a TEMP staging table and one INSERT … SELECT (see
// duckdb-connection.ts for the measurements). Every value is a bound parameter; the only SQL
// text built at run time is from constant column lists.
import { randomUUID } from 'node:crypto';
import { mkdir, stat } from 'node:fs/promises';
import { availableParallelism, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import type { Store } from '../store.js';
import { DuckDbAnalyticsRepository } from './analytics-repository.js';
import { DuckDbRecordRepository } from './record-repository.js';
import { DuckDbFunnelRepository } from './funnel-repository.js';
import { DuckDbRetentionRepository } from './retention-repository.js';
import { DuckDbLiveRepository } from './live-repository.js';
import { DuckDbStatsRepository } from './stats-repository.js';
import { DuckDbAccountRepository } from './account-repository.js';
import { DuckDbApiKeyRepository } from './api-key-repository.js';
import { DuckDbMemberRepository } from './member-repository.js';
import { DuckDbAuditRepository } from './audit-repository.js';
import { DuckDbClassificationRepository } from './classification-repository.js';
import { DuckDbConnection, DuckDbReaderPool } from './duckdb-connection.js';
import { DuckDbEventRepository } from './event-repository.js';
import { DuckDbExportRepository, exportDirBeside } from './export-repository.js';
import { DuckDbProjectErasure } from './project-erasure.js';
import { DuckDbDataExpiry } from './data-expiry.js';
import { DuckDbJobRepository } from './job-repository.js';
import { DUCKDB_MIGRATIONS_TABLE, duckdbMigrations } from './migrations.js';
import { DuckDbProjectRepository } from './project-repository.js';
import { DuckDbRuleRepository } from './rule-repository.js';
import { DuckDbSessionRepository } from './session-repository.js';
import { DuckDbRevokedTokenRepository } from './revoked-token-repository.js';
import { DuckDbSigningKeyRepository } from './signing-key-repository.js';
import { DuckDbTagRepository } from './tag-repository.js';
import { DuckDbThreads } from './duckdb-threads.js';

export interface DuckDbStoreOptions {
  /** Database file; its parent directory is created. `:memory:` for a throw-away store. */
  path: string;
  /**
   * DuckDB's memory cap (e.g. `1GB`). Its own default is 80% of RAM, which a service sharing a
   * small host should not take; beyond the cap DuckDB spills to disk.
   */
  memoryLimit?: string;
  /** Reader connections (default 2: one query per core at a time). */
  readers?: number;
  /** Where export files go (issue 17); default `exports` beside the database file. */
  exportDir?: string;
  /**
   * How many of the latest events' keys are remembered for idempotency (default
   * DEFAULT_KEY_WINDOW; event-repository.ts). A repeat of an older event is stored again.
   */
  keyWindow?: number;
  /**
   * DuckDB's threads for point reads and the pipeline's writes (default 1); scans of many rows
   * (jobs, funnels, retention, exports, erasure, migrations) run on every core (duckdb-threads.ts).
   */
  threads?: number;
}

const openPaths = new Set<string>();

export class DuckDbStore implements Store {
  readonly kind = 'duckdb' as const;
  readonly projects: DuckDbProjectRepository;
  readonly events: DuckDbEventRepository;
  readonly sessions: DuckDbSessionRepository;
  readonly accounts: DuckDbAccountRepository;
  readonly members: DuckDbMemberRepository;
  readonly audit: DuckDbAuditRepository;
  readonly apiKeys: DuckDbApiKeyRepository;
  readonly signingKeys: DuckDbSigningKeyRepository;
  readonly revokedTokens: DuckDbRevokedTokenRepository;
  readonly tags: DuckDbTagRepository;
  readonly rules: DuckDbRuleRepository;
  readonly classifications: DuckDbClassificationRepository;
  readonly jobs: DuckDbJobRepository;
  readonly analytics: DuckDbAnalyticsRepository;
  readonly records: DuckDbRecordRepository;
  readonly funnels: DuckDbFunnelRepository;
  readonly retention: DuckDbRetentionRepository;
  readonly live: DuckDbLiveRepository;
  readonly stats: DuckDbStatsRepository;
  readonly exports: DuckDbExportRepository;
  readonly erasure: DuckDbProjectErasure;
  readonly expiry: DuckDbDataExpiry;
  private closed: Promise<void> | null = null;

  private constructor(
    private readonly instance: DuckDBInstance,
    private readonly writer: DuckDbConnection,
    private readonly reader: DuckDbReaderPool,
    private readonly jobReader: DuckDbConnection,
    private readonly key: string | null,
    exportDir: string,
    keyWindow: number | undefined,
    /** Widens the engine for the calls that scan (duckdb-threads.ts). */
    readonly threads: DuckDbThreads,
  ) {
    this.projects = new DuckDbProjectRepository(writer, reader);
    this.events = new DuckDbEventRepository(writer, reader, keyWindow);
    this.sessions = new DuckDbSessionRepository(writer, reader);
    this.accounts = new DuckDbAccountRepository(writer, reader);
    this.members = new DuckDbMemberRepository(writer, reader);
    this.audit = new DuckDbAuditRepository(writer, reader);
    this.apiKeys = new DuckDbApiKeyRepository(writer, reader);
    this.signingKeys = new DuckDbSigningKeyRepository(writer, reader);
    this.revokedTokens = new DuckDbRevokedTokenRepository(writer, reader);
    this.tags = new DuckDbTagRepository(writer, reader);
    this.rules = new DuckDbRuleRepository(writer, reader);
    this.classifications = new DuckDbClassificationRepository(writer, reader);
    this.jobs = new DuckDbJobRepository(writer, reader);
    this.analytics = new DuckDbAnalyticsRepository(jobReader, writer, threads.during);
    this.records = new DuckDbRecordRepository(writer, reader);
    // Funnels and retention answer API requests synchronously: the readers' pool, not the jobs' connection.
    this.funnels = new DuckDbFunnelRepository(reader, threads.during);
    this.retention = new DuckDbRetentionRepository(reader, threads.during);
    this.live = new DuckDbLiveRepository(reader);
    this.stats = new DuckDbStatsRepository(reader, threads.during, writer);
    this.exports = new DuckDbExportRepository(exportDir, () => instance.connect(), threads.during, reader);
    this.erasure = new DuckDbProjectErasure(writer, this.exports, threads.during);
    this.expiry = new DuckDbDataExpiry(writer, threads.during);
  }

  static async open(opts: DuckDbStoreOptions): Promise<DuckDbStore> {
    const memory = opts.path === ':memory:';
    const key = memory ? null : resolve(opts.path);
    if (key !== null) {
      if (openPaths.has(key)) throw new Error(`DuckDB file ${key} is already open in this process; share its Store`);
      await mkdir(dirname(key), { recursive: true, mode: 0o700 });
    }
    // Checkpoints every 64 MB of WAL instead of DuckDB's 16 MB: each one rewrote the events'
    // primary-key indexes, and at the pipeline's write rate they took a third of its CPU
    // (200,000 event pairs: 94 → 64 µs each, the final checkpoint included; issue 14; since
    // migration step 9 only event_keys' bounded index is left). A crash replays at most that
    // much WAL on the next open.
    const threads = Math.max(1, Math.trunc(opts.threads ?? 1));
    const instance = await DuckDBInstance.create(key ?? ':memory:', {
      memory_limit: opts.memoryLimit ?? '1GB',
      checkpoint_threshold: '64MB',
      threads: String(threads),
    });
    if (key !== null) openPaths.add(key);
    try {
      const writer = new DuckDbConnection(await instance.connect());
      const readers = await Promise.all(
        Array.from(
          { length: Math.max(1, opts.readers ?? 2) },
          async () => new DuckDbConnection(await instance.connect(), true),
        ),
      );
      const jobReader = new DuckDbConnection(await instance.connect(), true);
      const control = new DuckDbConnection(await instance.connect());
      const exportDir =
        opts.exportDir ?? (key !== null ? exportDirBeside(key) : join(tmpdir(), `spoor-exports-${randomUUID()}`));
      return new DuckDbStore(
        instance,
        writer,
        new DuckDbReaderPool(readers),
        jobReader,
        key,
        exportDir,
        opts.keyWindow,
        new DuckDbThreads(control, threads, Math.max(threads, availableParallelism())),
      );
    } catch (err) {
      if (key !== null) openPaths.delete(key);
      instance.closeSync();
      throw err;
    }
  }

  async migrate(): Promise<void> {
    await this.writer.exclusive(async (x) => {
      await x.run(DUCKDB_MIGRATIONS_TABLE);
      const applied = new Set((await x.all('SELECT version FROM schema_migrations')).map((r) => Number(r.version)));
      const pending = duckdbMigrations.filter((m) => !applied.has(m.version));
      if (pending.length === 0) return;
      // Some steps rewrite whole tables (step 7 the events): on every core, then narrow at once.
      await this.threads.during(async () => {
        for (const m of pending) {
          await x.transaction(async () => {
            for (const sql of m.statements) await x.run(sql);
            await x.run('INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, $2, $3)', [
              m.version,
              m.name,
              Date.now(),
            ]);
          });
        }
      });
      await this.threads.narrowNow();
    });
  }

  async sizeBytes(): Promise<number> {
    if (this.key === null) return 0;
    const sizes = await Promise.all(
      [this.key, `${this.key}.wal`].map((f) =>
        stat(f).then(
          (s) => s.size,
          () => 0,
        ),
      ),
    );
    return sizes[0]! + sizes[1]!;
  }

  async memoryBytes(): Promise<Record<string, number>> {
    const rows = await this.reader.all('SELECT tag, memory_usage_bytes AS bytes FROM duckdb_memory()');
    return Object.fromEntries(rows.map((r) => [String(r.tag), Number(r.bytes)]));
  }

  close(): Promise<void> {
    this.closed ??= (async () => {
      try {
        await Promise.all([
          this.writer.close(),
          this.reader.close(),
          this.jobReader.close(),
          this.exports.close(),
          this.threads.close(),
        ]);
        this.instance.closeSync();
      } finally {
        if (this.key !== null) openPaths.delete(this.key);
      }
    })();
    return this.closed;
  }
}
