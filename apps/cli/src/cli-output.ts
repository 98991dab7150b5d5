/** A column of a table: its header and how to read it from a row. */
export interface Column<T> {
  header: string;
  value: (row: T) => unknown;
}

/** Fields holding ms since the epoch, shown as times to people (never in JSON). */
const TIME_KEY = /(_at|_since|^timestamp|^last_seen|^window_start|^window_end)$/;

const pad = (n: number, w = 2) => String(n).padStart(w, '0');

export interface OutputOptions {
  /** --json, or stdout is not a terminal. */
  machine: boolean;
  utc: boolean;
  write: (text: string) => void;
}

/**
 * What a command prints: JSON for scripts (--json, or when piped), else aligned tables and
 * key: value lines with times in local time (or UTC with --utc).
 */
export class CliOutput {
  constructor(private readonly o: OutputOptions) {}

  /** JSON of `data` for machines; `human()` for people. */
  result(data: unknown, human: () => string): void {
    this.o.write(this.o.machine ? `${JSON.stringify(data, null, 2)}\n` : `${human().replace(/\n*$/, '')}\n`);
  }

  time(ms: unknown): string {
    if (typeof ms !== 'number' || !Number.isFinite(ms)) return ms === null || ms === undefined ? '-' : String(ms);
    const d = new Date(ms);
    if (this.o.utc)
      return `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())} UTC`;
    return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
  }

  /** One cell: times for time fields, compact JSON for objects, '-' for nothing. */
  cell(value: unknown, key = ''): string {
    if (value === null || value === undefined || value === '') return '-';
    if (TIME_KEY.test(key)) return this.time(value);
    if (Array.isArray(value) && value.every((v) => typeof v !== 'object')) return value.join(', ') || '-';
    if (typeof value === 'object') return JSON.stringify(value);
    return String(value);
  }

  /** Aligned columns under a header; "(none)" for no rows. */
  table<T>(rows: T[], columns: Array<Column<T>>): string {
    if (rows.length === 0) return '(none)';
    const cells = rows.map((r) => columns.map((c) => this.cell(c.value(r), c.header)));
    const widths = columns.map((c, i) => Math.max(c.header.length, ...cells.map((row) => row[i]!.length)));
    const line = (values: string[]) =>
      values
        .map((v, i) => (i === values.length - 1 ? v : v.padEnd(widths[i]!)))
        .join('  ')
        .trimEnd();
    return [line(columns.map((c) => c.header.toUpperCase())), ...cells.map(line)].join('\n');
  }

  /** A record as aligned `key: value` lines. */
  record(obj: Record<string, unknown>, keys: string[] = Object.keys(obj)): string {
    const width = Math.max(...keys.map((k) => k.length));
    return keys.map((k) => `${`${k}:`.padEnd(width + 1)} ${this.cell(obj[k], k)}`).join('\n');
  }
}

/** Columns named after fields of the rows: `fields('session_id', 'event_count')`. */
export function fields<T extends object>(...names: Array<keyof T & string>): Array<Column<T>> {
  return names.map((n) => ({ header: n, value: (r: T) => r[n] }));
}
