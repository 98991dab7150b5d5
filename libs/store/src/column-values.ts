// Decoders for values as the engines hand them back. DuckDB returns BIGINT as a JS bigint;
// ClickHouse's JSON formats may quote 64-bit integers as strings
// (output_format_json_quote_64bit_integers) and return Bool as true/false or 1/0. The API
// speaks plain numbers (integer ms), so every read goes through these.

export function toInt(v: unknown): number {
  if (typeof v === 'number') return v;
  if (typeof v === 'bigint' || typeof v === 'string') return Number(v);
  throw new TypeError(`expected an integer, got ${typeof v}`);
}

export function toIntOrNull(v: unknown): number | null {
  return v === null || v === undefined ? null : toInt(v);
}

export function toFloatOrNull(v: unknown): number | null {
  if (v === null || v === undefined) return null;
  return typeof v === 'number' ? v : Number(v);
}

export function toStr(v: unknown): string {
  if (typeof v === 'string') return v;
  throw new TypeError(`expected a string, got ${typeof v}`);
}

export function toStrOrNull(v: unknown): string | null {
  return v === null || v === undefined ? null : toStr(v);
}

export function toBool(v: unknown): boolean {
  return v === true || v === 1 || v === '1' || v === 'true';
}

/**
 * A structured column: stored as JSON text (DuckDB VARCHAR, ClickHouse String) or natively
 * (ClickHouse Map/Array). JSON text always decodes to an object or array here, never to a
 * string, so the two spellings cannot be confused.
 */
export function toStructured<T>(v: unknown): T {
  return (typeof v === 'string' ? JSON.parse(v) : v) as T;
}

export function toStringMap(v: unknown): Record<string, string> {
  return toStructured<Record<string, string>>(v) ?? {};
}

export function toCountMap(v: unknown): Record<string, number> {
  const m = toStructured<Record<string, unknown>>(v) ?? {};
  const out: Record<string, number> = {};
  for (const [k, n] of Object.entries(m)) out[k] = toInt(n);
  return out;
}

export function toStringList(v: unknown): string[] {
  return toStructured<string[]>(v) ?? [];
}

/** Window bounds as bound parameters: an absent end means "unbounded" (end exclusive). */
export const MIN_MS = Number.MIN_SAFE_INTEGER;
export const MAX_MS = Number.MAX_SAFE_INTEGER;

export function checkLimit(limit: number): number {
  if (!Number.isInteger(limit) || limit < 0) throw new RangeError(`limit must be a non-negative integer, got ${limit}`);
  return limit;
}
