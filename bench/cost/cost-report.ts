import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { MachineInfo } from '../ingest/machine-info.js';
import { rowLabel, type CostOptions } from './cost-options.js';
import type { RowResult } from './cost-row.js';
import { ENGINE_NAMES } from './engine-processes.js';

/** A row's figures as the tables show them: per event under load, per second when idle. */
export interface RowFigures {
  /** `µs/event` under load, `ms/s` idle (or when no event was accepted). */
  unit: 'µs/event' | 'ms/s';
  eventsPerSec: number;
  spoor: number;
  coresBusy: number;
  threadGroups: Record<string, number>;
  engines: Record<string, number | null>;
  storeInsertsPerSec: number | null;
}

export interface CostReport {
  benchmark: 'cost';
  startedAt: string;
  machine: MachineInfo;
  options: CostOptions;
  rows: Array<RowResult & { figures: RowFigures | null }>;
}

/** CPU seconds in the row's unit. */
function perUnit(cpuSec: number, r: RowResult, unit: RowFigures['unit']): number {
  return unit === 'µs/event' ? (cpuSec * 1e6) / r.acceptedEvents! : (cpuSec * 1000) / r.windowSec!;
}

export function figuresOf(r: RowResult): RowFigures | null {
  if (!r.spoor || !r.windowSec) return null;
  const unit = r.row.requestsPerSec > 0 && r.acceptedEvents! > 0 ? 'µs/event' : 'ms/s';
  const inserts = r.storeInserts ? Object.values(r.storeInserts).reduce((a, b) => a + b, 0) : null;
  return {
    unit,
    eventsPerSec: r.acceptedEvents! / r.windowSec,
    spoor: perUnit(r.spoor.cpuSec, r, unit),
    coresBusy: r.spoor.cpuSec / r.windowSec,
    threadGroups: Object.fromEntries(
      Object.entries(r.spoor.threadGroups).map(([g, c]) => [g, perUnit(c.cpuSec, r, unit)]),
    ),
    engines: Object.fromEntries(
      Object.entries(r.engines ?? {}).map(([name, e]) => [name, e ? perUnit(e.cpuSec, r, unit) : null]),
    ),
    storeInsertsPerSec: inserts === null ? null : inserts / r.windowSec,
  };
}

const fmt = (n: number | null | undefined, digits = 0) =>
  n === null || n === undefined || Number.isNaN(n) ? '-' : n.toFixed(digits);

/** A CPU figure with its unit: `697 µs` per event, `12.3 ms/s` idle. */
function cpu(n: number | null | undefined, unit: RowFigures['unit']): string {
  if (n === null || n === undefined || Number.isNaN(n)) return '-';
  return unit === 'µs/event' ? `${fmt(n)} µs` : `${fmt(n, 1)} ms/s`;
}

function markdown(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((cells) => cells[i]!.length)));
  const line = (cells: string[]) =>
    `| ${cells.map((c, i) => (i < 2 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join(' | ')} |`;
  const rule = `|${widths.map((w, i) => (i < 2 ? '-'.repeat(w + 2) : `${'-'.repeat(w + 1)}:`)).join('|')}|`;
  return [line(header), rule, ...rows.map(line)].join('\n');
}

const ENGINE_TITLES: Record<string, string> = { kafka: 'Kafka', clickhouse: 'ClickHouse', redis: 'Redis' };

function mainCells(r: RowResult): string[] {
  const lead = [r.mode, rowLabel(r.row)];
  const f = figuresOf(r);
  if (r.skipped || !f) return [...lead, r.skipped ? 'SKIPPED' : 'FAILED', ...Array<string>(9).fill('')];
  const load = r.load;
  const read = r.readability;
  const engines = ENGINE_NAMES.map((n) => (r.engines ? (r.engines[n] ? cpu(f.engines[n], f.unit) : 'n/a') : '—'));
  return [
    ...lead,
    r.row.requestsPerSec > 0 ? fmt(f.eventsPerSec) : '—',
    load ? `${fmt(load.latency.p50)} / ${fmt(load.latency.p99)}` : '—',
    cpu(f.spoor, f.unit),
    fmt(f.coresBusy, 2),
    ...engines,
    fmt(r.spoor!.peakRssMiB),
    f.storeInsertsPerSec === null ? 'n/a' : fmt(f.storeInsertsPerSec, 1),
    read
      ? `${fmt(read.p50Ms)} / ${fmt(read.p99Ms)}${read.readable < read.probes ? ` (${read.readable}/${read.probes})` : ''}`
      : '—',
  ];
}

/** One line per (mode, row): the issue's columns. CPU per event under load, per second idle. */
export function formatMainTable(rows: RowResult[]): string {
  const header = [
    'mode',
    'load',
    'achieved ev/s',
    'ingest p50 / p99 ms',
    'Spoor CPU',
    'cores',
    ...ENGINE_NAMES.map((n) => `${ENGINE_TITLES[n]} CPU`),
    'peak RSS MiB',
    'store inserts/s',
    'readable p50 / p99 ms',
  ];
  return markdown(header, rows.map(mainCells));
}

/** thread-cpu.ts' groups; a thread that names itself (Spoor's `spoor-pipeline`) comes right after main. */
const GROUP_ORDER = ['worker threads', 'libuv pool', 'V8 platform', 'other', 'started later', 'exited'];

/** main, the threads' own names alphabetically, then thread-cpu.ts' groups. */
function orderedGroups(names: string[]): string[] {
  const seen = new Set(names);
  const named = [...seen].filter((g) => g !== 'main' && !GROUP_ORDER.includes(g)).sort();
  return [...(seen.has('main') ? ['main'] : []), ...named, ...GROUP_ORDER.filter((g) => seen.has(g))];
}

/** Spoor's CPU by thread group (thread-cpu.ts), in each row's unit. */
export function formatThreadTable(rows: RowResult[]): string {
  const measured = rows.map((r) => ({ r, f: figuresOf(r) })).filter((x) => x.f !== null);
  const groups = orderedGroups(measured.flatMap((x) => Object.keys(x.f!.threadGroups)));
  const cells = measured.map(({ r, f }) => [
    r.mode,
    rowLabel(r.row),
    cpu(f!.spoor, f!.unit),
    ...groups.map((g) => (g in f!.threadGroups ? cpu(f!.threadGroups[g], f!.unit) : '')),
  ]);
  return markdown(['mode', 'load', 'Spoor', ...groups], cells);
}

/** The line printed as a row ends. */
export function summarizeRow(r: RowResult): string {
  const head = `${r.mode} ${rowLabel(r.row)}`;
  if (r.skipped) return `!!!!! ${head} SKIPPED: ${r.skipped} !!!!!`;
  const f = figuresOf(r);
  const parts: string[] = [];
  if (r.failed) parts.push(`FAILED: ${r.failed}`);
  if (f) {
    if (r.load)
      parts.push(
        `${fmt(f.eventsPerSec)} ev/s accepted (${r.load['2xx']} × 2xx in ${fmt(r.windowSec, 1)} s), p50 ${r.load.latency.p50} ms, p99 ${r.load.latency.p99} ms, ${r.load.non2xx} non-2xx, ${r.load.errors + r.load.timeouts} errors`,
      );
    const threads = orderedGroups(Object.keys(f.threadGroups))
      .map((g) => [g, f.threadGroups[g]!] as const)
      .map(([g, n]) => `${g} ${cpu(n, f.unit)}`)
      .join(', ');
    parts.push(
      `Spoor ${cpu(f.spoor, f.unit)}${f.unit === 'µs/event' ? '/event' : ''}, ${fmt(f.coresBusy, 2)} cores (${threads})`,
    );
    if (r.engines)
      parts.push(
        `engines ${ENGINE_NAMES.map((n) => `${ENGINE_TITLES[n]} ${r.engines![n] ? cpu(f.engines[n], f.unit) : 'n/a (not started by this bench)'}`).join(', ')}`,
      );
    parts.push(`peak RSS ${fmt(r.spoor!.peakRssMiB)} MiB`);
    parts.push(
      r.storeInserts
        ? `store inserts ${fmt(f.storeInsertsPerSec, 1)}/s (${Object.entries(r.storeInserts)
            .map(([t, n]) => `${t} ${fmt(n / r.windowSec!, 1)}/s`)
            .join(', ')})`
        : 'store inserts n/a (no spoor_store_inserts_total in /metrics)',
    );
  }
  const read = r.readability;
  if (read)
    parts.push(
      `readable p50 ${fmt(read.p50Ms)} ms, p99 ${fmt(read.p99Ms)} ms, max ${fmt(read.maxMs)} ms (${read.readable}/${read.probes} probes${read.failures.length ? `; ${read.failures[0]}` : ''})`,
    );
  if (r.exitCode !== 0 && r.exitCode !== undefined)
    parts.push(
      `the Spoor process ended with ${r.exitSignal ?? `exit code ${r.exitCode}`} (SIGTERM sent after the row)`,
    );
  if (r.errorLogLines) parts.push(`${r.errorLogLines} error log lines, first: ${r.firstErrors?.[0]}`);
  return `${head}: ${parts.join('\n  ')}`;
}

/** Writes the report to `<resultsDir>/cost-<ISO time>.json` and returns the path. */
export async function writeReport(report: Omit<CostReport, 'rows'> & { rows: RowResult[] }): Promise<string> {
  await mkdir(report.options.resultsDir, { recursive: true });
  const stamp = report.startedAt.replace(/:/g, '-').replace(/\.\d+Z$/, 'Z');
  const path = join(report.options.resultsDir, `cost-${stamp}.json`);
  const full: CostReport = { ...report, rows: report.rows.map((r) => ({ ...r, figures: figuresOf(r) })) };
  await writeFile(path, `${JSON.stringify(full, null, 2)}\n`);
  return path;
}
