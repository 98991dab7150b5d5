// Exports in the embedded mode: DuckDB's own COPY … TO writes the file into the data dir
// (`<data dir>/exports/<export id>.<ext>`), where the gateway, in the same process, streams it
// from (docs/data.md). The file is written under a `.partial` name and renamed when complete,
// so a download never sees half a file.
import { createReadStream } from 'node:fs';
import { mkdir, readdir, rename, rm, stat, utimes } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { EXPORT_EXTENSIONS, type ExportFormat } from '@spoor/schemas';
import { MAX_MS, MIN_MS, toInt } from '../column-values.js';
import {
  checkExportId,
  EXPORT_COLUMNS,
  EXPORT_SOURCES,
  type ExportedFile,
  type ExportRepository,
  type ExportSpec,
} from '../data-ownership.js';
import { DuckDbConnection, quote } from './duckdb-connection.js';
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
   * reader connection's queue (every API read) must not wait behind.
   */
  constructor(
    readonly dir: string,
    private readonly connect: () => Promise<DuckDBConnection>,
    private readonly wide: Wide,
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
    const rows = await (
      await this.connection()
    ).all(
      `COPY (SELECT ${columns} FROM ${source.table}
             WHERE project_id = $1 AND ${quote(source.time)} >= $2 AND ${quote(source.time)} < $3
             ORDER BY ${source.order.map(quote).join(', ')})
       TO ${sqlString(partial)} (${COPY_OPTIONS[spec.format]})`,
      [spec.project_id, spec.window_start ?? MIN_MS, spec.window_end ?? MAX_MS],
    );
    // The file's time is when the job wrote it, so purge() follows the clock the worker was given.
    await utimes(partial, spec.written_at / 1000, spec.written_at / 1000);
    await rename(partial, file);
    return { rows: toInt(rows[0]?.['Count'] ?? 0), bytes: (await stat(file)).size };
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
