import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { MachineInfo } from '../ingest/machine-info.js';
import type { AggregateBenchOptions } from './aggregate-options.js';
import type { PeakRss } from './memory-peaks.js';
import type { SizeResult } from './size-run.js';

export interface AggregateBenchReport {
  benchmark: 'aggregate';
  startedAt: string;
  machine: MachineInfo;
  options: AggregateBenchOptions;
  results: SizeResult[];
  failures: string[];
}

const int = (n: number) => Math.round(n).toLocaleString('en');
const sec = (s: number) => (s < 10 ? s.toFixed(2) : s.toFixed(1));

export function formatJobs(results: SizeResult[]): string {
  const head =
    '| mode | events | count s (baseline) | aggregation s | x count | aggregation events/s | transitions s | x count | transitions events/s | rounds (count / aggregation / transitions s) |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|---|';
  const rows = results.map(
    ({ mode, events, jobs: j }) =>
      `| ${mode} | ${int(events)} | ${sec(j.sec.count)} | ${sec(j.sec.aggregation)} | ${j.ratio.aggregation.toFixed(1)} | ${int(j.eventsPerSec.aggregation)} | ${sec(j.sec.transitions)} | ${j.ratio.transitions.toFixed(1)} | ${int(j.eventsPerSec.transitions)} | ` +
      `${j.rounds.map((r) => `${sec(r.count)} / ${sec(r.aggregation)} / ${sec(r.transitions)}`).join('; ')} |`,
  );
  return [head, ...rows].join('\n');
}

/** Mean seconds per chunk over the first and the last tenth of the chunks. */
function firstLastTenth(xs: number[]): string {
  const tenth = Math.max(1, Math.floor(xs.length / 10));
  const mean = (ys: number[]) => ys.reduce((a, b) => a + b, 0) / ys.length;
  return `${sec(mean(xs.slice(0, tenth)))} → ${sec(mean(xs.slice(-tenth)))}`;
}

export function formatLoad(results: SizeResult[]): string {
  const head =
    '| mode | events | sessions | tag facts | load s | events/s | insertEnriched s | per chunk, first → last tenth | sessions.upsert s | tags.add s | chunks |\n|---|---:|---:|---:|---:|---:|---:|---|---:|---:|---:|';
  const rows = results.map(
    ({ mode, events, load: l }) =>
      `| ${mode} | ${int(events)} | ${int(l.tally.sessions)} | ${int(l.tally.tagFacts)} | ${l.loadSec.toFixed(1)} | ${int(l.eventsPerSec)} | ${l.storeSec.insertEnriched.toFixed(1)} | ` +
      `${firstLastTenth(l.chunkInsertSec)} | ${l.storeSec.sessionsUpsert.toFixed(1)} | ${l.storeSec.tagsAdd.toFixed(1)} | ${l.chunks} |`,
  );
  return [head, ...rows].join('\n');
}

const peak = (p: PeakRss) =>
  [`${int(p.benchMiB)}`, ...Object.entries(p.children).map(([name, mib]) => `${name} ${int(mib)}`)].join(', ');

export function formatMemory(results: SizeResult[]): string {
  const head = '| mode | events | load | count | aggregation | transitions |\n|---|---:|---|---|---|---|';
  const rows = results.map(
    ({ mode, events, load, jobs: j }) =>
      `| ${mode} | ${int(events)} | ${peak(load.memory)} | ${peak(j.memory.count)} | ${peak(j.memory.aggregation)} | ${peak(j.memory.transitions)} |`,
  );
  return ['peak RSS MiB per phase (this process first, then its child processes):', head, ...rows].join('\n');
}

export function formatStalls(results: SizeResult[]): string {
  const head =
    '| mode | events | job | job s (with reads) | reads | p50 ms | max ms |\n|---|---:|---|---:|---:|---:|---:|';
  const rows = results.flatMap(({ mode, events, jobs: j }) =>
    (['aggregation', 'transitions'] as const).map(
      (job) =>
        `| ${mode} | ${int(events)} | ${job} | ${sec(j.stalls[job].jobSec)} | ${j.stalls[job].reads} | ${j.stalls[job].p50Ms} | ${j.stalls[job].maxMs} |`,
    ),
  );
  return ['projects.get every 50 ms while a job runs (one extra run, not in the medians):', head, ...rows].join('\n');
}

/** Writes the report as JSON; answers the file's path. */
export async function writeReport(report: AggregateBenchReport): Promise<string> {
  await mkdir(report.options.resultsDir, { recursive: true });
  const file = join(report.options.resultsDir, `aggregate-${report.startedAt.replace(/[:.]/g, '-')}.json`);
  await writeFile(file, `${JSON.stringify(report, null, 2)}\n`);
  return file;
}
