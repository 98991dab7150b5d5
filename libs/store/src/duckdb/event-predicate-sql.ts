// A funnel step's compiled condition (schemas, event-predicate.ts) as DuckDB SQL. Values are
// bound parameters; column names come from EVENT_TEXT_COLUMNS (constants) and are checked.
import { EVENT_TEXT_COLUMNS, type EventPredicate } from '@spoor/schemas';
import { quote, type Param } from './duckdb-connection.js';

const COLUMNS = new Set(Object.values(EVENT_TEXT_COLUMNS));

/** Positional parameters after the ones a query already uses. */
export class DuckParams {
  constructor(readonly values: Param[]) {}

  bind(v: Param): string {
    this.values.push(v);
    return `$${this.values.length}`;
  }
}

function column(name: string): string {
  if (!COLUMNS.has(name)) throw new Error(`not an event text column: ${name}`);
  return quote(name);
}

/** RFC 6901 JSON pointer of a path of keys. */
const pointer = (path: string[]) => `/${path.map((s) => s.replaceAll('~', '~0').replaceAll('/', '~1')).join('/')}`;

function oneOf(expr: string, values: string[], orNull: boolean, p: DuckParams): string {
  const inList = values.length ? `coalesce(${expr} IN (${values.map((v) => p.bind(v)).join(', ')}), false)` : 'false';
  return orNull ? `(${expr} IS NULL OR ${inList})` : inList;
}

function payloadIs(path: string[], value: string | number | boolean | null, p: DuckParams): string {
  const at = p.bind(pointer(path));
  const type = `json_type(payload, ${at})`;
  if (value === null) return `(coalesce(${type}, 'NULL') = 'NULL')`;
  if (typeof value === 'string')
    return `coalesce(${type} = 'VARCHAR' AND json_extract_string(payload, ${at}) = ${p.bind(value)}, false)`;
  if (typeof value === 'number')
    return `coalesce(${type} IN ('BIGINT', 'UBIGINT', 'HUGEINT', 'DOUBLE') AND TRY_CAST(json_extract(payload, ${at}) AS DOUBLE) = ${p.bind(value)}::DOUBLE, false)`;
  return `coalesce(${type} = 'BOOLEAN' AND TRY_CAST(json_extract(payload, ${at}) AS BOOLEAN) = ${p.bind(value)}, false)`;
}

/** A boolean SQL expression, never NULL. */
export function duckPredicate(e: EventPredicate, p: DuckParams): string {
  switch (e.op) {
    case 'const':
      return e.value ? 'true' : 'false';
    case 'and':
    case 'or':
      return `(${e.args.map((a) => duckPredicate(a, p)).join(` ${e.op.toUpperCase()} `)})`;
    case 'not':
      return `(NOT ${duckPredicate(e.arg, p)})`;
    case 'column_in':
      return oneOf(column(e.column), e.values, e.orNull, p);
    case 'column_contains': {
      const c = column(e.column);
      return `coalesce(${c} <> '' AND contains(${c}, ${p.bind(e.value)}), false)`;
    }
    case 'query_in':
      return oneOf(`json_extract_string(query, ${p.bind(pointer([e.name]))})`, e.values, e.orNull, p);
    case 'query_contains': {
      const q = `json_extract_string(query, ${p.bind(pointer([e.name]))})`;
      return `coalesce(${q} <> '' AND contains(${q}, ${p.bind(e.value)}), false)`;
    }
    case 'payload_is':
      return payloadIs(e.path, e.value, p);
  }
}
