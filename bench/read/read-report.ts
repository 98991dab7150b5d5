import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { MachineInfo } from '../ingest/machine-info.js';
import type { EndpointResult, ModeResult } from './mode-run.js';
import { BASELINE } from './read-endpoints.js';
import type { ReadBenchOptions } from './read-options.js';

export interface ReadBenchReport {
  benchmark: 'read';
  startedAt: string;
  machine: MachineInfo;
  options: ReadBenchOptions;
  results: ModeResult[];
  /** Every reason the run failed: a non-200 answer, a socket error, a mode that threw. */
  failures: string[];
}

const fmt = (n: number | null | undefined, digits = 0) =>
  n === null || n === undefined || !Number.isFinite(n) ? '-' : n.toFixed(digits);

const non200 = (r: EndpointResult) =>
  Object.entries(r.load.autocannon.statusCodeStats).reduce((n, [code, s]) => (code === '200' ? n : n + s.count), 0);

function row(r: EndpointResult, baseline: EndpointResult | undefined): string[] {
  const { autocannon: a, exact: e } = r.load;
  const ratio = (v: number, b: number | undefined) => (baseline && r !== baseline && b ? fmt(v / b, 1) : '');
  return [
    r.route,
    fmt(a.requests.mean),
    fmt(e.p50, 2),
    fmt(e.p99, 2),
    ratio(e.p50, baseline?.load.exact.p50),
    ratio(e.p99, baseline?.load.exact.p99),
    String(non200(r)),
    String(a.errors + a.timeouts),
    fmt(r.server.cpuSec, 1),
    fmt(r.server.peakRssMiB),
  ];
}

/** The table of one mode; latency ratios divide by GET /healthz of the same process. */
export function formatModeTable(m: ModeResult): string {
  const endpoints = m.endpoints ?? [];
  const baseline = endpoints.find((r) => r.name === BASELINE);
  const header = [
    'endpoint',
    'req/s',
    'p50 ms',
    'p99 ms',
    'p50 x healthz',
    'p99 x healthz',
    'non-200',
    'errors',
    'server CPU s',
    'peak RSS MiB',
  ];
  const rows = [header, ...endpoints.map((r) => row(r, baseline))];
  const widths = header.map((_, i) => Math.max(...rows.map((cells) => cells[i]!.length)));
  const line = (cells: string[]) =>
    `| ${cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join(' | ')} |`;
  const rule = `|${widths.map((w, i) => (i === 0 ? '-'.repeat(w + 2) : `${'-'.repeat(w + 1)}:`)).join('|')}|`;
  return [line(header), rule, ...rows.slice(1).map(line)].join('\n');
}

/** One paragraph per mode: dataset, load time, start time, table, peak memory. */
export function formatMode(m: ModeResult): string {
  if (m.skipped) return `!!!!! ${m.mode.toUpperCase()} SKIPPED: ${m.skipped} !!!!!`;
  if (!m.dataset || !m.endpoints || !m.server) return `${m.mode}: no result`;
  const d = m.dataset;
  return [
    `${m.mode}: ${d.events.toLocaleString('en')} events in ${d.sessions.toLocaleString('en')} sessions (${d.tags.toLocaleString('en')} tags, payload ${d.avgPayloadBytes.toFixed(0)} B on average)`,
    `  loaded through the store in ${(d.wallMs / 1000).toFixed(1)} s: ${fmt(d.eventsPerSec)} events/s, ${fmt(d.rowsPerSec)} rows/s over ${d.rows.toLocaleString('en')} rows in ${d.batches} batches (${(d.storeMs / 1000).toFixed(1)} s inside the store)`,
    `  server serving ${(m.startMs! / 1000).toFixed(1)} s after spawn; peak RSS (VmHWM) ${fmt(m.server.peakRssMiB)} MiB; ${m.server.errorLogLines} error log lines`,
    '',
    formatModeTable(m),
    ...besideJobLines(m.endpoints),
  ].join('\n');
}

/** Issue 15, target 5: each read's p50 beside running transitions jobs against its idle p50 (≤ 2×). */
function besideJobLines(endpoints: EndpointResult[]): string[] {
  const lines: string[] = [];
  for (const r of endpoints) {
    if (!r.besideJobs) continue;
    const idle = endpoints.find((e) => `${e.name}+jobs` === r.name);
    const ratio = idle ? r.load.exact.p50 / idle.load.exact.p50 : NaN;
    lines.push(
      `  ${idle?.route ?? r.name} beside transitions jobs: p50 ${fmt(r.load.exact.p50, 2)} ms against ${fmt(idle?.load.exact.p50, 2)} ms idle, ${fmt(ratio, 2)}× (target ≤ 2×); ${r.besideJobs.ended} jobs ended during the load, median ${fmt(r.besideJobs.medianMs)} ms`,
    );
  }
  return lines.length ? ['', ...lines] : [];
}

/** Every reason to call the run failed: any answer but 200, socket errors, an empty load. */
export function findFailures(results: ModeResult[]): string[] {
  const failures: string[] = [];
  for (const m of results) {
    for (const r of m.endpoints ?? []) {
      const a = r.load.autocannon;
      if (non200(r) > 0)
        failures.push(`${m.mode} ${r.route}: answers other than 200: ${JSON.stringify(a.statusCodeStats)}`);
      if (a.errors + a.timeouts > 0)
        failures.push(`${m.mode} ${r.route}: ${a.errors} socket errors, ${a.timeouts} timeouts`);
      if (r.load.exact.count === 0) failures.push(`${m.mode} ${r.route}: no response at all within ${a.duration} s`);
      const jobs = r.besideJobs;
      if (jobs && jobs.failed > 0)
        failures.push(`${m.mode} ${r.route}: ${jobs.failed} jobs failed: ${jobs.firstError}`);
      if (jobs && jobs.ended === 0) failures.push(`${m.mode} ${r.route}: no transitions job ended during the load`);
    }
  }
  return failures;
}

/** Writes the report to `<resultsDir>/read-<ISO time>.json` and returns the path. */
export async function writeReport(report: ReadBenchReport): Promise<string> {
  await mkdir(report.options.resultsDir, { recursive: true });
  const stamp = report.startedAt.replace(/:/g, '-').replace(/\.\d+Z$/, 'Z');
  const path = join(report.options.resultsDir, `read-${stamp}.json`);
  await writeFile(path, `${JSON.stringify(report, null, 2)}\n`);
  return path;
}
