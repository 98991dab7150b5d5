// Exports in the embedded mode: DuckDB's own COPY … TO writes the file into the data dir
// (`<data dir>/exports/<export id>.<ext>`), where the gateway, in the same process, streams it
// from (docs/data.md). The file is written under a `.partial` name and renamed when complete,
// so a download never sees half a file.
import { createReadStream } from 'node:fs';
import { mkdir, readdir, rename, rm, stat, utimes } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { EXPORT_EXTENSIONS, type ExportFormat } from '@spoor/schemas';
import { MAX_MS, MIN_MS, toInt, toIntOrNull } from '../column-values.js';
import {
  checkExportId,
  EXPORT_ACTIVE_MS,
  EXPORT_COLUMNS,
  EXPORT_SOURCES,
  exportMark,
  type ExportedFile,
  type ExportRepository,
  type ExportSource,
  type ExportSpec,
  type ExportUsage,
  type ExportUsageQuery,
} from '../data-ownership.js';
import { DuckDbConnection, quote, type DuckReader } from './duckdb-connection.js';
import type { Wide } from './duckdb-threads.js';

const COPY_OPTIONS: Record<ExportFormat, string> = {
  csv: 'FORMAT csv, HEADER true',
  ndjson: 'FORMAT json',
  parquet: 'FORMAT parquet',
};

const sqlString = (s: string) => `'${s.replaceAll("'", "''")}'`;
const exportFile = (dir: string, id: string, format: ExportFormat) => join(dir, `${id}.${EXPORT_EXTENSIONS[format]}`);

export class DuckDbExportRepository implements ExportRepository {
  private conn: Promise<DuckDbConnection> | null = null;

  /**
   * `connect` opens a connection of its own: a COPY of a million rows takes seconds, which the
   * reader connection's queue (every API read) must not wait behind. `reader` answers the
   * quick questions of POST /v1/exports (mark, usage), which must not wait behind a COPY.
   */
  constructor(
    readonly dir: string,
    private readonly connect: () => Promise<DuckDBConnection>,
    private readonly wide: Wide,
    private readonly reader: DuckReader,
  ) {}

  write(spec: ExportSpec): Promise<ExportedFile> {
    return this.wide(() => this.writeFile(spec));
  }

  private async writeFile(spec: ExportSpec): Promise<ExportedFile> {
    const id = checkExportId(spec.export_id);
    await mkdir(this.dir, { recursive: true, mode: 0o700 });
    await this.remove(id);
    const file = this.path(id, spec.format);
    const partial = `${file}.partial`;
    const source = EXPORT_SOURCES[spec.what];
    const columns = EXPORT_COLUMNS[spec.what].map(quote).join(', ');
    const conn = await this.connection();
    // Before the rows: a change while they are written moves the mark past the file, never behind it.
    const mark = await this.markOn(conn, spec);
    const rows = await conn.all(
      `COPY (SELECT ${columns} FROM ${source.table}
             WHERE project_id = $1 AND ${quote(source.time)} >= $2 AND ${quote(source.time)} < $3
             ORDER BY ${source.order.map(quote).join(', ')})
       TO ${sqlString(partial)} (${COPY_OPTIONS[spec.format]})`,
      [spec.project_id, spec.window_start ?? MIN_MS, spec.window_end ?? MAX_MS],
    );
    // The file's time is when the job wrote it, so purge() follows the clock the worker was given.
    await utimes(partial, spec.written_at / 1000, spec.written_at / 1000);
    await rename(partial, file);
    return { rows: toInt(rows[0]?.['Count'] ?? 0), bytes: (await stat(file)).size, mark };
  }

  mark(source: ExportSource): Promise<string> {
    return this.markOn(this.reader, source);
  }

  private async markOn(conn: DuckReader, spec: ExportSource): Promise<string> {
    const source = EXPORT_SOURCES[spec.what];
    const [row] = await conn.all(
      `SELECT count(*) AS n, max(${quote(source.changed)}) AS changed FROM ${source.table}
       WHERE project_id = $1 AND ${quote(source.time)} >= $2 AND ${quote(source.time)} < $3`,
      [spec.project_id, spec.window_start ?? MIN_MS, spec.window_end ?? MAX_MS],
    );
    return exportMark(toInt(row?.['n'] ?? 0), toIntOrNull(row?.['changed']));
  }

  async usage(q: ExportUsageQuery): Promise<ExportUsage> {
    const expiresAt = `CAST(json_extract(result, '$.expires_at') AS BIGINT)`;
    const active = `(status IN ('queued', 'running') AND created_at > $3)`;
    const held = `(status = 'succeeded' AND ${expiresAt} > $2)`;
    const [totals] = await this.reader.all(
      `SELECT count(*) FILTER (WHERE ${active}) AS active,
              coalesce(sum(CAST(json_extract(result, '$.bytes') AS BIGINT)) FILTER (WHERE ${held}), 0) AS bytes,
              min(${expiresAt}) FILTER (WHERE ${held}) AS next_expiry
       FROM jobs WHERE account_id = $1 AND kind = 'export'`,
      [q.account_id, q.now, q.now - EXPORT_ACTIVE_MS],
    );
    // The request as jobToRow stored it (JSON.stringify of the dispatched object).
    const [same] = await this.reader.all(
      `SELECT job_id, status, json_extract_string(result, '$.mark') AS mark FROM jobs
       WHERE account_id = $1 AND kind = 'export' AND project_id = $4 AND request = $5 AND (${active} OR ${held})
       ORDER BY created_at DESC, job_id LIMIT 1`,
      [q.account_id, q.now, q.now - EXPORT_ACTIVE_MS, q.project_id, JSON.stringify(q.request)],
    );
    return {
      active: toInt(totals?.['active'] ?? 0),
      bytes: toInt(totals?.['bytes'] ?? 0),
      next_expiry: toIntOrNull(totals?.['next_expiry']),
      same: same
        ? {
            job_id: String(same['job_id']),
            status: String(same['status']) as 'queued' | 'running' | 'succeeded',
            mark: same['mark'] == null ? null : String(same['mark']),
          }
        : null,
    };
  }

  open(exportId: string): Promise<{ stream: ReturnType<typeof createReadStream>; bytes: number } | null> {
    return openExportFile(this.dir, exportId);
  }

  async purge(before: number): Promise<number> {
    const names = await readdir(this.dir).catch(() => [] as string[]);
    let removed = 0;
    for (const name of names) {
      const file = join(this.dir, name);
      const s = await stat(file).catch(() => null);
      if (s && s.mtimeMs < before) {
        await rm(file, { force: true });
        removed++;
      }
    }
    return removed;
  }

  /** Removes every file of an export, complete or partial. */
  async remove(exportId: string): Promise<void> {
    const id = checkExportId(exportId);
    await Promise.all(
      Object.values(EXPORT_EXTENSIONS).flatMap((ext) =>
        [`${id}.${ext}`, `${id}.${ext}.partial`].map((n) => rm(join(this.dir, n), { force: true })),
      ),
    );
  }

  async close(): Promise<void> {
    if (this.conn) await (await this.conn).close();
  }

  private path(id: string, format: ExportFormat): string {
    return exportFile(this.dir, id, format);
  }

  private connection(): Promise<DuckDbConnection> {
    this.conn ??= this.connect().then((c) => new DuckDbConnection(c));
    return this.conn;
  }
}

/** Where a store at `dbFile` keeps its export files unless told otherwise: `exports` beside it. */
export function exportDirBeside(dbFile: string): string {
  return join(dirname(dbFile), 'exports');
}

/**
 * An export's file in `dir`, streamed; null when there is none. Needs no connection: the embedded
 * process' HTTP thread serves downloads with it while DuckDB lives on the pipeline thread.
 */
export async function openExportFile(
  dir: string,
  exportId: string,
): Promise<{ stream: ReturnType<typeof createReadStream>; bytes: number } | null> {
  const id = checkExportId(exportId);
  for (const format of Object.keys(EXPORT_EXTENSIONS) as ExportFormat[]) {
    const file = exportFile(dir, id, format);
    const found = await stat(file).catch(() => null);
    if (found) return { stream: createReadStream(file), bytes: found.size };
  }
  return null;
}
