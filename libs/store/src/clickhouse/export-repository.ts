// Exports in ClickHouse mode: the server writes the file with its own output formats, the
// worker streams that output into export_chunks (1 MiB pieces, base64), and the gateway reads
// them back in order (migrations.ts step 7; docs/data.md).
import { Readable } from 'node:stream';
import type { ExportFormat } from '@spoor/schemas';
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
import type { ClickHouseConnection, Params } from './clickhouse-connection.js';

const CHUNK_BYTES = 1024 * 1024;

const FORMATS: Record<ExportFormat, string> = { csv: 'CSVWithNames', ndjson: 'JSONEachRow', parquet: 'Parquet' };

/** Map and Array columns become JSON text, as DuckDB stores them (data-ownership.ts, EXPORT_COLUMNS). */
const AS_JSON_TEXT = new Set(['query', 'actions', 'tags']);
/** UInt64 version columns are written as DuckDB's BIGINT is, a signed INT64 (issue 43: one schema for both). */
const AS_INT64 = new Set(['updated_at']);
const column = (c: string) =>
  AS_JSON_TEXT.has(c) ? `toJSONString(${c}) AS ${c}` : AS_INT64.has(c) ? `toInt64(${c}) AS ${c}` : c;

export class ClickHouseExportRepository implements ExportRepository {
  constructor(private readonly ch: ClickHouseConnection) {}

  async write(spec: ExportSpec): Promise<ExportedFile> {
    const id = checkExportId(spec.export_id);
    await this.remove(id);
    const source = EXPORT_SOURCES[spec.what];
    const where = `FROM ${this.ch.table(source.table)} FINAL
      WHERE project_id = {project_id:String} AND ${source.time} >= {start:Int64} AND ${source.time} < {end:Int64}`;
    const params: Params = {
      project_id: spec.project_id,
      start: spec.window_start ?? MIN_MS,
      end: spec.window_end ?? MAX_MS,
    };
    // Before the rows: a change while they are written moves the mark past the file, never behind it.
    const [counted] = await this.ch.rows(`SELECT count() AS n, max(${source.changed}) AS changed ${where}`, params);
    const mark = exportMark(toInt(counted?.n ?? 0), toIntOrNull(counted?.changed));
    const body = await this.ch.exec(
      `SELECT ${EXPORT_COLUMNS[spec.what].map(column).join(', ')} ${where} ORDER BY ${source.order.join(', ')} FORMAT ${FORMATS[spec.format]}`,
      params,
      // As DuckDB writes them: Snappy (every Parquet reader has it; zstd is an extra for some),
      // and NULL as an empty CSV field rather than \N.
      {
        output_format_parquet_string_as_string: 1,
        output_format_parquet_compression_method: 'snappy',
        format_csv_null_representation: '',
      },
    );
    let seq = 0;
    let bytes = 0;
    let pending: Buffer[] = [];
    let pendingBytes = 0;
    const flush = async () => {
      const data = Buffer.concat(pending);
      for (let at = 0; at < data.length; at += CHUNK_BYTES) {
        const piece = data.subarray(at, at + CHUNK_BYTES);
        await this.ch.insert('export_chunks', [
          {
            export_id: id,
            seq: seq++,
            project_id: spec.project_id,
            bytes: piece.length,
            data: piece.toString('base64'),
            written_at: spec.written_at,
          },
        ]);
        bytes += piece.length;
      }
      pending = [];
      pendingBytes = 0;
    };
    for await (const piece of body) {
      pending.push(piece as Buffer);
      pendingBytes += (piece as Buffer).length;
      if (pendingBytes >= CHUNK_BYTES) await flush();
    }
    await flush();
    // An empty file (no rows in NDJSON) is still a file: one chunk of no bytes records it.
    if (seq === 0)
      await this.ch.insert('export_chunks', [
        { export_id: id, seq: seq++, project_id: spec.project_id, bytes: 0, data: '', written_at: spec.written_at },
      ]);
    return { rows: toInt(counted?.n ?? 0), bytes, mark };
  }

  async mark(spec: ExportSource): Promise<string> {
    const source = EXPORT_SOURCES[spec.what];
    const [row] = await this.ch.rows(
      `SELECT count() AS n, max(${source.changed}) AS changed FROM ${this.ch.table(source.table)} FINAL
       WHERE project_id = {project_id:String} AND ${source.time} >= {start:Int64} AND ${source.time} < {end:Int64}`,
      { project_id: spec.project_id, start: spec.window_start ?? MIN_MS, end: spec.window_end ?? MAX_MS },
    );
    return exportMark(toInt(row?.n ?? 0), toIntOrNull(row?.changed));
  }

  async usage(q: ExportUsageQuery): Promise<ExportUsage> {
    const expiresAt = `JSONExtractInt(result, 'expires_at')`;
    const active = `(status IN ('queued', 'running') AND created_at > {since:Int64})`;
    const held = `(status = 'succeeded' AND ${expiresAt} > {now:Int64})`;
    const params = {
      account_id: q.account_id,
      now: q.now,
      since: q.now - EXPORT_ACTIVE_MS,
      project_id: q.project_id,
      // The request as jobToRow stored it (JSON.stringify of the dispatched object).
      request: JSON.stringify(q.request),
    };
    const jobs = `${this.ch.table('jobs')} FINAL WHERE account_id = {account_id:String} AND kind = 'export'`;
    const [totals] = await this.ch.rows(
      `SELECT countIf(${active}) AS active, sumIf(JSONExtractInt(result, 'bytes'), ${held}) AS bytes,
              minIf(${expiresAt}, ${held}) AS next_expiry, countIf(${held}) AS held
       FROM ${jobs}`,
      params,
    );
    const [same] = await this.ch.rows(
      `SELECT job_id, status, JSONExtractString(result, 'mark') AS mark FROM ${jobs}
         AND project_id = {project_id:String} AND request = {request:String} AND (${active} OR ${held})
       ORDER BY created_at DESC, job_id LIMIT 1`,
      params,
    );
    return {
      active: toInt(totals?.active ?? 0),
      bytes: toInt(totals?.bytes ?? 0),
      // minIf of no rows is 0, not NULL.
      next_expiry: toInt(totals?.held ?? 0) > 0 ? toInt(totals?.next_expiry) : null,
      same: same
        ? {
            job_id: String(same.job_id),
            status: String(same.status) as 'queued' | 'running' | 'succeeded',
            mark: same.status === 'succeeded' ? String(same.mark) : null,
          }
        : null,
    };
  }

  async open(exportId: string): Promise<{ stream: Readable; bytes: number } | null> {
    const id = checkExportId(exportId);
    const [found] = await this.ch.rows(
      `SELECT count() AS chunks, sum(bytes) AS bytes FROM ${this.ch.table('export_chunks')} FINAL WHERE export_id = {id:String}`,
      { id },
    );
    const chunks = toInt(found?.chunks ?? 0);
    if (chunks === 0) return null;
    const ch = this.ch;
    // One primary-key lookup per chunk: at most 1 MiB in memory, whatever the file's size.
    async function* pieces() {
      for (let seq = 0; seq < chunks; seq++) {
        const [row] = await ch.rows(
          `SELECT data FROM ${ch.table('export_chunks')} FINAL WHERE export_id = {id:String} AND seq = {seq:UInt32}`,
          { id, seq },
        );
        if (!row) throw new Error(`export ${id} lost chunk ${seq}`);
        yield Buffer.from(String(row.data), 'base64');
      }
    }
    return { stream: Readable.from(pieces()), bytes: toInt(found?.bytes ?? 0) };
  }

  async purge(before: number): Promise<number> {
    const [found] = await this.ch.rows(
      `SELECT uniqExact(export_id) AS n FROM ${this.ch.table('export_chunks')} WHERE written_at < {before:Int64}`,
      { before },
    );
    const n = toInt(found?.n ?? 0);
    if (n > 0)
      await this.ch.command(`DELETE FROM ${this.ch.table('export_chunks')} WHERE written_at < {before:Int64}`, {
        before,
      });
    return n;
  }

  /** Lightweight delete: the chunks vanish from reads at once and from disk at the next merge. */
  async remove(exportId: string): Promise<void> {
    await this.ch.command(`DELETE FROM ${this.ch.table('export_chunks')} WHERE export_id = {id:String}`, {
      id: checkExportId(exportId),
    });
  }
}
