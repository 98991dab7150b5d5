import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { BenchOptions } from './bench-options.js';
import type { MachineInfo } from './machine-info.js';
import type { TargetResult } from './target-runs.js';

export interface BenchReport {
  benchmark: 'ingest';
  startedAt: string;
  machine: MachineInfo;
  options: BenchOptions;
  results: TargetResult[];
  /** Everything that makes the run a failure (non-2xx, socket errors, lost events). */
  failures: string[];
}

const fmt = (n: number | null | undefined, digits = 0) =>
  n === null || n === undefined || Number.isNaN(n) ? '-' : n.toFixed(digits);

/**
 * Events the pipeline stored and sessionized per second: the events in sessions over the load
 * plus the time it took to drain after it (issue 14, target 1). Null without a pipeline.
 */
export function pipelineEventsPerSec(r: TargetResult): number | null {
  const p = r.pipeline;
  if (!p?.stored || p.drainMs === null || !r.load) return null;
  return p.stored.sessionEvents / (r.load.duration + p.drainMs / 1000);
}

function row(r: TargetResult, baselineRps: number | null, batch: number): string[] {
  if (r.skipped) return [r.target, 'SKIPPED', ...Array<string>(13).fill('')];
  const load = r.load!;
  const p = r.pipeline;
  const isBaseline = r.target === 'baseline';
  const ratio = (n: number | null) => (baselineRps && !isBaseline && n !== null ? fmt(n / baselineRps, 3) : '');
  const events = load.requests.mean * (isBaseline ? 1 : batch);
  const piped = pipelineEventsPerSec(r);
  return [
    r.target,
    fmt(load.requests.mean),
    fmt(events),
    fmt(load.latency.p50, 1),
    fmt(load.latency.p99, 1),
    String(load.non2xx),
    String(load.errors + load.timeouts),
    ratio(isBaseline ? null : load.requests.mean),
    fmt(piped),
    ratio(piped),
    fmt(r.server!.memoryAtEnd.peakRssMiB),
    fmt(r.server!.cpuSec, 1),
    p ? (p.drainMs === null ? 'TIMEOUT' : fmt(p.drainMs / 1000, 1)) : '',
    p ? fmt(p.counters['accepted']) : '',
    p?.stored ? `${p.stored.raw}/${p.stored.enriched}/${p.stored.sessionEvents}` : '',
  ];
}

/**
 * The table printed after a run. `x baseline` divides a target's req/s by the baseline's;
 * `stored ev/s` is pipelineEventsPerSec and its `x baseline` divides that by the baseline's req/s.
 */
export function formatTable(results: TargetResult[], options: Pick<BenchOptions, 'batch'>): string {
  const baseline = results.find((r) => r.target === 'baseline' && r.load);
  const baselineRps = baseline?.load?.requests.mean ?? null;
  const header = [
    'target',
    'req/s',
    'events/s',
    'p50 ms',
    'p99 ms',
    'non-2xx',
    'errors',
    'x baseline',
    'stored ev/s',
    'stored x baseline',
    'peak RSS MiB',
    'CPU s',
    'drain s',
    'accepted',
    'stored raw/enriched/sessioned',
  ];
  const rows = [header, ...results.map((r) => row(r, baselineRps, options.batch))];
  const widths = header.map((_, i) => Math.max(...rows.map((cells) => cells[i]!.length)));
  const line = (cells: string[]) =>
    `| ${cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join(' | ')} |`;
  const rule = `|${widths.map((w, i) => (i === 0 ? '-'.repeat(w + 2) : `${'-'.repeat(w + 1)}:`)).join('|')}|`;
  return [line(header), rule, ...rows.slice(1).map(line)].join('\n');
}

/** Every reason to call the run failed: refused or lost requests, events not all stored. */
export function findFailures(results: TargetResult[]): string[] {
  const failures: string[] = [];
  for (const r of results) {
    if (!r.load) continue;
    const { non2xx, errors, timeouts, statusCodeStats } = r.load;
    if (non2xx > 0) failures.push(`${r.target}: ${non2xx} non-2xx responses (${JSON.stringify(statusCodeStats)})`);
    if (errors + timeouts > 0) failures.push(`${r.target}: ${errors} socket errors, ${timeouts} timeouts`);
    const p = r.pipeline;
    if (!p) continue;
    // autocannon does not count the responses still in flight when its time is up, so the
    // server's own `accepted` counter is the number of events that must be stored.
    const accepted = p.counters['accepted'] ?? NaN;
    const human = accepted - (p.counters['bots'] ?? 0);
    const seen = r.load['2xx'] + p.probeAccepted;
    if (!(accepted >= seen))
      failures.push(`${r.target}: the client saw ${seen} x 2xx but ingest counted ${accepted} accepted`);
    if (p.drainMs === null) failures.push(`${r.target}: the pipeline did not drain; lag ${JSON.stringify(p.lagAtEnd)}`);
    if (p.stored && (p.stored.raw !== accepted || p.stored.enriched !== accepted || p.stored.sessionEvents !== human)) {
      failures.push(
        `${r.target}: ${accepted} events accepted (${human} not bots), stored raw ${p.stored.raw}, enriched ${p.stored.enriched}, in sessions ${p.stored.sessionEvents}`,
      );
    }
  }
  return failures;
}

/** Writes the report to `<resultsDir>/ingest-<ISO time>.json` and returns the path. */
export async function writeReport(report: BenchReport): Promise<string> {
  await mkdir(report.options.resultsDir, { recursive: true });
  const stamp = report.startedAt.replace(/:/g, '-').replace(/\.\d+Z$/, 'Z');
  const path = join(report.options.resultsDir, `ingest-${stamp}.json`);
  await writeFile(path, `${JSON.stringify(report, null, 2)}\n`);
  return path;
}
