import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { MachineInfo } from '../ingest/machine-info.js';
import type { CallTiming } from './call-timings.js';
import type { ClassifyBenchOptions } from './classify-options.js';
import type { ModeResult } from './mode-run.js';

export interface ClassifyBenchReport {
  benchmark: 'classify';
  startedAt: string;
  machine: MachineInfo;
  options: ClassifyBenchOptions;
  results: ModeResult[];
  failures: string[];
}

const int = (n: number) => Math.round(n).toLocaleString('en');
const pct = (x: number) => `${Math.round(x * 100)} %`;

export function formatClassify(results: ModeResult[]): string {
  const head =
    '| mode | classify sessions/s (end to end) | pure evaluation sessions/s | ratio | store + KV share | rounds (end to end) |\n|---|---|---|---|---|---|';
  const rows = results.map(
    ({ mode, classify: c }) =>
      `| ${mode} | ${int(c.endToEndRate)} | ${int(c.pureRate)} | ${c.ratio.toFixed(3)} | ${pct(c.storeShare)} | ${c.rounds.map((r) => int(r.endToEndRate)).join(', ')} |`,
  );
  return [head, ...rows].join('\n');
}

export function formatBackfill(results: ModeResult[]): string {
  const head =
    '| mode | sessions | backfill s | sessions/s | page-through s (before, after) | ratio | store + KV share | load s |\n|---|---|---|---|---|---|---|---|';
  const rows = results.map(
    ({ mode, backfill: b }) =>
      `| ${mode} | ${int(b.sessions)} | ${b.backfillSec.toFixed(1)} | ${int(b.sessionsPerSec)} | ${b.pageOnlySec.map((s) => s.toFixed(1)).join(', ')} | ${b.ratio.toFixed(2)} | ${pct(b.storeShare)} | ${b.loadSec.toFixed(1)} |`,
  );
  return [head, ...rows].join('\n');
}

function formatCalls(title: string, calls: Record<string, CallTiming>): string {
  const lines = Object.entries(calls).map(
    ([name, t]) =>
      `  ${name.padEnd(26)} ${String(t.calls).padStart(6)} calls ${(t.ms / 1000).toFixed(2).padStart(8)} s ${(t.ms / t.calls).toFixed(1).padStart(8)} ms/call` +
      ` (first tenth ${t.firstTenthMs.toFixed(1)}, last tenth ${t.lastTenthMs.toFixed(1)}, max ${t.maxMs.toFixed(0)})`,
  );
  return [`${title}:`, ...lines].join('\n');
}

export function formatCallBreakdown(results: ModeResult[]): string {
  return results
    .flatMap((r) => [
      formatCalls(`${r.mode} classify (all rounds)`, r.classify.calls),
      formatCalls(`${r.mode} backfill`, r.backfill.calls),
    ])
    .join('\n');
}

/** Writes the report as JSON; answers the file's path. */
export async function writeReport(report: ClassifyBenchReport): Promise<string> {
  await mkdir(report.options.resultsDir, { recursive: true });
  const file = join(report.options.resultsDir, `classify-${report.startedAt.replace(/[:.]/g, '-')}.json`);
  await writeFile(file, `${JSON.stringify(report, null, 2)}\n`);
  return file;
}
