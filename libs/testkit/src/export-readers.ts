// Independent readers of export files (issue 17): csv-parse for CSV, JSON.parse per line for
// NDJSON, hyparquet for Parquet; none of them is the engine that wrote the file. Every value is
// normalised to text (null stays null, an empty CSV field is null) so rows compare across formats.
import { parse } from 'csv-parse/sync';
import { parquetMetadata, parquetReadObjects } from 'hyparquet';

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

type SchemaElement = ReturnType<typeof parquetMetadata>['schema'][number];

/**
 * The type a reader gets from a column: `string`, `int64`, `uint64`, `int32`…, else the
 * declared types as they are. Writers annotate alike types differently (DuckDB gives a string
 * its logical type STRING, ClickHouse only the converted type UTF8; ClickHouse marks an INT64
 * INT_64), which no reader tells apart; a signed and an unsigned integer it does.
 */
function readType(e: SchemaElement): string {
  const logical = e.logical_type;
  const converted = e.converted_type ?? '';
  if (e.type === 'BYTE_ARRAY' && (converted === 'UTF8' || logical?.type === 'STRING')) return 'string';
  const plainInt = (e.type === 'INT32' || e.type === 'INT64') && (!logical || logical.type === 'INTEGER');
  if (plainInt && (converted === '' || /^U?INT_\d+$/.test(converted))) {
    const unsigned = logical?.type === 'INTEGER' ? !logical.isSigned : converted.startsWith('UINT');
    const width =
      logical?.type === 'INTEGER'
        ? logical.bitWidth
        : Number(/\d+$/.exec(converted)?.[0] ?? (e.type === 'INT32' ? 32 : 64));
    return `${unsigned ? 'uint' : 'int'}${width}`;
  }
  return [e.type, converted, logical && JSON.stringify(logical)].filter(Boolean).join(' ');
}

/**
 * Each column's type as a reader of a Parquet file gets it (readType), so the files of two
 * engines can be compared type for type.
 */
export function parquetColumnTypes(bytes: Uint8Array): Record<string, string> {
  const { schema } = parquetMetadata(new Uint8Array(bytes).buffer);
  return Object.fromEntries(schema.slice(1).map((e) => [e.name, readType(e)]));
}
