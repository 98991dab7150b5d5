import {
  LIST,
  VARCHAR,
  listValue,
  type DuckDBAppender,
  type DuckDBConnection,
  type DuckDBDataChunk,
  type DuckDBPreparedStatement,
  type DuckDBResultReader,
  type DuckDBType,
  type DuckDBValue,
} from '@duckdb/node-api';
import { setImmediate as yieldToLoop } from 'node:timers/promises';

/** How a column of a staged insert is appended. JSON: a VARCHAR holding JSON.stringify(value). */
export type DuckColumnType = 'VARCHAR' | 'BIGINT' | 'DOUBLE' | 'BOOLEAN' | 'JSON';
export type DuckColumns = ReadonlyArray<readonly [name: string, type: DuckColumnType]>;
export type Row = Record<string, unknown>;
export type Param = string | number | boolean | null | readonly string[];

/** What the repositories read through: one connection, or a pool of them. */
export interface DuckReader {
  all(sql: string, params?: readonly Param[]): Promise<Row[]>;
  /**
   * The result as DuckDB's chunks, for a result too large to become a JS value per item: a
   * caller reads the vectors' typed arrays (funnels: a list of numbers per unit, 7 × 10^5
   * numbers for 10^6 events, took 135–250 ms as JS arrays and a few ms from the vectors).
   */
  chunks(sql: string, params?: readonly Param[]): Promise<DuckDBDataChunk[]>;
}

/** What runs inside {@link DuckDbConnection.exclusive}: nothing else uses the connection meanwhile. */
export interface DuckExecutor {
  all(sql: string, params?: readonly Param[]): Promise<Row[]>;
  chunks(sql: string, params?: readonly Param[]): Promise<DuckDBDataChunk[]>;
  run(sql: string, params?: readonly Param[]): Promise<void>;
  /** Appends rows to a TEMP staging table with exactly `columns`, created on first use. */
  stage(stage: string, source: string, columns: DuckColumns, rows: readonly Row[]): Promise<void>;
  /**
   * The hot path's variant of stage(): `create` makes the (TEMP) stage, `appendRow` appends one
   * item straight from the caller's object in the stage's column order (endRow included), with
   * no row object in between.
   */
  stageWith<T>(
    stage: string,
    create: string,
    items: readonly T[],
    appendRow: (appender: DuckDBAppender, item: T) => void,
  ): Promise<void>;
  /**
   * Appends straight into `table` (inside the caller's transaction, if any). Throws on a
   * constraint violation, after which the transaction is aborted: the caller rolls back.
   */
  appendTo<T>(
    table: string,
    items: readonly T[],
    appendRow: (appender: DuckDBAppender, item: T) => void,
  ): Promise<void>;
  /** BEGIN … COMMIT around fn, ROLLBACK when it throws. */
  transaction<T>(fn: () => Promise<T>): Promise<T>;
}

/**
 * One DuckDB connection used by one caller at a time. A connection runs a single statement at
 * once, and concurrent `run`s on one connection have crashed the process
 * (duckdb/duckdb-node-neo#142; #122, #227), so every use goes through a promise queue.
 * Values are always bound. With `cacheStatements` (the read connection) prepared statements
 * that take parameters are kept per SQL text (see caches()). The write connection prepares
 * afresh every time: re-running a cached `INSERT … SELECT FROM <stage> ON CONFLICT DO NOTHING`
 * after the Appender refilled the stage failed in DuckDB 1.5.6 with "Invalid unicode … in
 * segment statistics update" and then a segfault (reproduced outside this package; fresh
 * statements do not show it).
 */
export class DuckDbConnection implements DuckExecutor, DuckReader {
  private tail: Promise<unknown> = Promise.resolve();
  /** Calls queued or running on this connection (DuckDbReaderPool picks the least busy). */
  pending = 0;
  private readonly prepared = new Map<string, DuckDBPreparedStatement>();

  constructor(
    private readonly conn: DuckDBConnection,
    private readonly cacheStatements = false,
  ) {}

  /** Runs fn alone on this connection (statements of one transaction must not interleave). */
  exclusive<T>(fn: (x: DuckExecutor) => Promise<T>): Promise<T> {
    this.pending++;
    const result = this.tail
      .then(() => fn(this.executor))
      .finally(() => {
        this.pending--;
      });
    this.tail = result.catch(() => undefined);
    return result;
  }

  all(sql: string, params: readonly Param[] = []): Promise<Row[]> {
    return this.exclusive((x) => x.all(sql, params));
  }

  chunks(sql: string, params: readonly Param[] = []): Promise<DuckDBDataChunk[]> {
    return this.exclusive((x) => x.chunks(sql, params));
  }

  run(sql: string, params: readonly Param[] = []): Promise<void> {
    return this.exclusive((x) => x.run(sql, params));
  }

  stage(stage: string, source: string, columns: DuckColumns, rows: readonly Row[]): Promise<void> {
    return this.exclusive((x) => x.stage(stage, source, columns, rows));
  }

  stageWith<T>(
    stage: string,
    create: string,
    items: readonly T[],
    appendRow: (appender: DuckDBAppender, item: T) => void,
  ): Promise<void> {
    return this.exclusive((x) => x.stageWith(stage, create, items, appendRow));
  }

  appendTo<T>(
    table: string,
    items: readonly T[],
    appendRow: (appender: DuckDBAppender, item: T) => void,
  ): Promise<void> {
    return this.exclusive((x) => x.appendTo(table, items, appendRow));
  }

  transaction<T>(fn: () => Promise<T>): Promise<T> {
    return this.exclusive((x) => x.transaction(fn));
  }

  /** Waits for queued work, then disconnects. */
  async close(): Promise<void> {
    await this.exclusive(async () => {
      for (const s of this.prepared.values()) s.destroySync();
      this.prepared.clear();
      this.conn.closeSync();
    });
  }

  // The unqueued operations; only reachable through exclusive().
  private readonly executor: DuckExecutor = {
    all: async (sql, params = []) => {
      const reader = this.caches(params)
        ? await (await this.cached(sql, params)).runAndReadAll()
        : await this.conn.runAndReadAll(sql, toValues(params), toTypes(params));
      return plainRows(reader);
    },
    chunks: async (sql, params = []) => {
      const result = this.caches(params)
        ? await (await this.cached(sql, params)).run()
        : await this.conn.run(sql, toValues(params), toTypes(params));
      return Array.from({ length: result.chunkCount }, (_, i) => result.getChunk(i));
    },
    run: async (sql, params = []) => {
      if (this.caches(params)) await (await this.cached(sql, params)).run();
      else await this.conn.run(sql, toValues(params), toTypes(params));
    },
    stage: (stage, source, columns, rows) => this.appendToStage(stage, source, columns, rows),
    stageWith: (stage, create, items, appendRow) => this.fillStage(stage, create, items, appendRow),
    appendTo: (table, items, appendRow) => this.append(table, items, appendRow),
    transaction: async (fn) => {
      await this.conn.run('BEGIN TRANSACTION');
      try {
        const out = await fn();
        await this.conn.run('COMMIT');
        return out;
      } catch (err) {
        await this.conn.run('ROLLBACK').catch(() => undefined);
        throw err;
      }
    },
  };

  /**
   * Statements without parameters are never cached: DuckDB 1.5.6 plans a prepared statement
   * with the table statistics of the moment it was prepared, and a parameterless
   * `SELECT … ORDER BY` prepared on an empty table returned garbled VARCHARs once rows had
   * been added (reproduced here; upstream: duckdb/duckdb#24696, stale statistics in prepared
   * statements, #23704). The same sequence with bound parameters read correctly for every
   * statement shape this package uses (checked against DuckDB 1.5.6); the upstream fix stops
   * statistics from shaping prepared plans at all.
   */
  private caches(params: readonly Param[]): boolean {
    return this.cacheStatements && params.length > 0;
  }

  private async cached(sql: string, params: readonly Param[]): Promise<DuckDBPreparedStatement> {
    let stmt = this.prepared.get(sql);
    if (!stmt) {
      stmt = await this.conn.prepare(sql);
      this.prepared.set(sql, stmt);
    }
    stmt.clearBindings();
    stmt.bind(toValues(params), toTypes(params));
    return stmt;
  }

  /**
   * Bulk path for batches: the Appender writes straight into a TEMP table (no constraints,
   * no SQL parsing per row); the caller then moves the rows with one INSERT … SELECT that can
   * say ON CONFLICT. Measured at 1,000 rows: ~50–65k rows/s, against ~6.5k rows/s for
   * multi-row VALUES with bound parameters and ~40k rows/s for unnest() over bound lists.
   * Stage and source names are constants of this package, never input.
   */
  private async appendToStage(
    stage: string,
    source: string,
    columns: DuckColumns,
    rows: readonly Row[],
  ): Promise<void> {
    // A new empty stage for every batch. `DELETE FROM` (and TRUNCATE) only mark rows deleted in
    // DuckDB 1.5.6: a stage reused that way kept every row group it ever held, grew from 5 to 33
    // row groups and 400 MiB over 4M staged rows, spilled to disk, slowed each batch threefold
    // and ran a 10M-event load out of memory (bench/aggregate, docs/performance.md). Replacing
    // the table keeps it at one row group.
    const names = columns.map(([n]) => quote(n)).join(', ');
    await this.fillStage(
      stage,
      `CREATE OR REPLACE TEMP TABLE ${stage} AS SELECT ${names} FROM ${source} LIMIT 0`,
      rows,
      (a, row) => {
        for (const [name, type] of columns) appendValue(a, type, row[name]);
        a.endRow();
      },
    );
  }

  /**
   * Creates the stage and appends every item. Appending costs tens of µs a row on the thread
   * that also answers HTTP in the one-process mode: a 5,000-row batch in one go held ingest's
   * answers for over 100 ms (p99, issue 14), so other work gets a turn every 64 rows (every 256
   * left event-loop stalls of 23–26 ms at p99 under single events).
   */
  private async fillStage<T>(
    stage: string,
    create: string,
    items: readonly T[],
    appendRow: (a: DuckDBAppender, item: T) => void,
  ): Promise<void> {
    await this.conn.run(create);
    await this.append(stage, items, appendRow);
  }

  private async append<T>(
    table: string,
    items: readonly T[],
    appendRow: (a: DuckDBAppender, item: T) => void,
  ): Promise<void> {
    const appender = await this.conn.createAppender(table);
    let appended = false;
    try {
      for (let i = 0; i < items.length; i++) {
        if (i > 0 && i % 64 === 0) await yieldToLoop();
        appendRow(appender, items[i]!);
      }
      appender.flushSync();
      appended = true;
    } finally {
      // After a failed append, closing fails too ("transaction is aborted"): the first error counts.
      // Its rows still buffered are dropped first: left in it, the appender flushed them again
      // whenever it was finalized, inside whatever transaction the connection had open then,
      // and aborted it ("Current transaction is aborted" on the next batch, now and then).
      if (!appended) {
        try {
          appender.clear();
        } catch {
          /* nothing buffered */
        }
      }
      try {
        appender.closeSync();
      } catch (err) {
        if (appended) throw err;
      }
    }
  }
}

/** String lists bind as LIST(VARCHAR) (an empty list has no element to infer a type from). */
function toValues(params: readonly Param[]): DuckDBValue[] {
  return params.map((p) => (Array.isArray(p) ? listValue(p as string[]) : (p as DuckDBValue)));
}

function toTypes(params: readonly Param[]): DuckDBType[] | undefined {
  if (!params.some((p) => Array.isArray(p))) return undefined;
  // An undefined entry means "infer from the value" at run time (DuckDBPreparedStatement.bind).
  return params.map((p) => (Array.isArray(p) ? LIST(VARCHAR) : undefined)) as DuckDBType[];
}

function appendValue(a: DuckDBAppender, type: DuckColumnType, v: unknown): void {
  if (v === null || v === undefined) return a.appendNull();
  switch (type) {
    case 'VARCHAR':
      return a.appendVarchar(String(v));
    case 'JSON':
      return a.appendVarchar(JSON.stringify(v));
    case 'BIGINT':
      return a.appendBigInt(BigInt(v as number));
    case 'DOUBLE':
      return a.appendDouble(Number(v));
    case 'BOOLEAN':
      return a.appendBoolean(Boolean(v));
  }
}

/**
 * The result's rows as objects, BIGINT as numbers (the API speaks numbers; ms fit in 2^53).
 * Converted column by column, then assembled: for a page of 1,000 sessions, query and conversion
 * took 2.4–2.6 ms of CPU against 2.9–3.2 through `getRowObjectsJS()` and a copy of each row (which
 * visits every value through a callback); a session's 20 events of 36 columns cost the same both
 * ways (issue 15, eleventh round).
 */
function plainRows(reader: DuckDBResultReader): Row[] {
  const names = reader.deduplicatedColumnNames();
  const columns = reader.getColumnsJS();
  const rows: Row[] = new Array(reader.currentRowCount);
  for (let r = 0; r < rows.length; r++) {
    const row: Row = {};
    for (let c = 0; c < names.length; c++) {
      const v = columns[c]![r];
      row[names[c]!] = typeof v === 'bigint' ? Number(v) : v;
    }
    rows[r] = row;
  }
  return rows;
}

export function quote(identifier: string): string {
  return `"${identifier.replaceAll('"', '""')}"`;
}

/** A PRIMARY KEY or UNIQUE violation, as DuckDB words it. */
export function isConstraintViolation(err: unknown): boolean {
  return err instanceof Error && /constraint|duplicate key/i.test(err.message);
}

/**
 * Reads spread over several connections of one instance, each call to the connection with the
 * fewest calls queued. One reader connection served one query at a time: ten dashboards asking
 * at once waited in line behind each other's 10 ms scans while a core sat idle (issue 15).
 */
export class DuckDbReaderPool implements DuckReader {
  constructor(private readonly connections: readonly DuckDbConnection[]) {
    if (connections.length === 0) throw new Error('a reader pool needs a connection');
  }

  all(sql: string, params: readonly Param[] = []): Promise<Row[]> {
    return this.leastBusy().all(sql, params);
  }

  chunks(sql: string, params: readonly Param[] = []): Promise<DuckDBDataChunk[]> {
    return this.leastBusy().chunks(sql, params);
  }

  private leastBusy(): DuckDbConnection {
    let best = this.connections[0]!;
    for (const c of this.connections) if (c.pending < best.pending) best = c;
    return best;
  }

  async close(): Promise<void> {
    await Promise.all(this.connections.map((c) => c.close()));
  }
}
