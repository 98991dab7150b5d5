// A funnel step's compiled condition (schemas, event-predicate.ts) as ClickHouse SQL. Values
// travel as `{name:Type}` parameters; column names come from EVENT_TEXT_COLUMNS and are checked.
import { EVENT_TEXT_COLUMNS, type EventPredicate } from '@spoor/schemas';
import type { Params } from './clickhouse-connection.js';

const COLUMNS = new Set(Object.values(EVENT_TEXT_COLUMNS));

export class ChParams {
  constructor(readonly values: Params) {}

  bind(v: string | number | boolean, type: 'String' | 'Float64' | 'Bool'): string {
    const name = `v${Object.keys(this.values).length}`;
    this.values[name] = v;
    return `{${name}:${type}}`;
  }
}

function column(name: string): string {
  if (!COLUMNS.has(name)) throw new Error(`not an event text column: ${name}`);
  return name;
}

function oneOf(expr: string, values: string[], p: ChParams): string {
  return values.length ? `ifNull(${expr} IN (${values.map((v) => p.bind(v, 'String')).join(', ')}), 0)` : '0';
}

function payloadIs(path: string[], value: string | number | boolean | null, p: ChParams): string {
  const keys = path.map((k) => p.bind(k, 'String')).join(', ');
  const type = `JSONType(payload, ${keys})`;
  if (value === null) return `(${type} = 'Null')`;
  if (typeof value === 'string')
    return `(${type} = 'String' AND JSONExtractString(payload, ${keys}) = ${p.bind(value, 'String')})`;
  if (typeof value === 'number')
    return `(${type} IN ('Int64', 'UInt64', 'Double') AND JSONExtractFloat(payload, ${keys}) = ${p.bind(value, 'Float64')})`;
  return `(${type} = 'Bool' AND JSONExtractBool(payload, ${keys}) = ${p.bind(value, 'Bool')})`;
}

/** A UInt8 expression, never NULL. */
export function chPredicate(e: EventPredicate, p: ChParams): string {
  switch (e.op) {
    case 'const':
      return e.value ? '1' : '0';
    case 'and':
    case 'or':
      return `(${e.args.map((a) => chPredicate(a, p)).join(` ${e.op.toUpperCase()} `)})`;
    case 'not':
      return `(NOT ${chPredicate(e.arg, p)})`;
    case 'column_in': {
      const c = column(e.column);
      return e.orNull ? `(isNull(${c}) OR ${oneOf(c, e.values, p)})` : oneOf(c, e.values, p);
    }
    case 'column_contains': {
      const c = column(e.column);
      return `ifNull(${c} <> '' AND position(${c}, ${p.bind(e.value, 'String')}) > 0, 0)`;
    }
    case 'query_in': {
      const k = p.bind(e.name, 'String');
      const has = `mapContains(query, ${k})`;
      const inList = e.values.length
        ? `(${has} AND query[${k}] IN (${e.values.map((v) => p.bind(v, 'String')).join(', ')}))`
        : '0';
      return e.orNull ? `(NOT ${has} OR ${inList})` : inList;
    }
    case 'query_contains': {
      const k = p.bind(e.name, 'String');
      return `(mapContains(query, ${k}) AND query[${k}] <> '' AND position(query[${k}], ${p.bind(e.value, 'String')}) > 0)`;
    }
    case 'payload_is':
      return payloadIs(e.path, e.value, p);
  }
}
