// Independent readers of export files (issue 17): csv-parse for CSV, JSON.parse per line for
// NDJSON, hyparquet for Parquet; none of them is the engine that wrote the file. Every value is
// normalised to text (null stays null, an empty CSV field is null) so rows compare across formats.
import { parse } from 'csv-parse/sync';
import { parquetReadObjects } from 'hyparquet';

export type ExportedRow = Record<string, string | null>;

const text = (v: unknown): string | null =>
  v === null || v === undefined ? null : typeof v === 'string' ? v : String(v);

export async function readExport(format: 'csv' | 'ndjson' | 'parquet', bytes: Uint8Array): Promise<ExportedRow[]> {
  switch (format) {
    case 'csv': {
      const rows = parse(Buffer.from(bytes), { columns: true }) as Array<Record<string, string>>;
      return rows.map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, v === '' ? null : v])));
    }
    case 'ndjson':
      return Buffer.from(bytes)
        .toString('utf8')
        .split('\n')
        .filter((l) => l.length > 0)
        .map((l) =>
          Object.fromEntries(Object.entries(JSON.parse(l) as Record<string, unknown>).map(([k, v]) => [k, text(v)])),
        );
    case 'parquet': {
      const copy = new Uint8Array(bytes);
      const rows = await parquetReadObjects({ file: copy.buffer });
      return rows.map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, text(v)])));
    }
  }
}
