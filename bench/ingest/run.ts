// `npm run bench`: ingest throughput of Spoor against a bare node:http server measured in the
// same run (CONVENTIONS.md, Benchmarks). Targets run one after the other, each server in its
// own child process and the load from another; see docs/performance.md for how to read it.
import { stopAllEngines } from '@spoor/testkit';
import { parseBenchOptions, UsageError, type BenchOptions, type TargetName } from './bench-options.js';
import { describeMachine, machineInfo } from './machine-info.js';
import { findFailures, formatTable, writeReport, type BenchReport } from './results-report.js';
import { runBaseline, runSpoor, type TargetResult } from './target-runs.js';

function runTarget(target: TargetName, options: BenchOptions): Promise<TargetResult> {
  return target === 'baseline' ? runBaseline(options) : runSpoor(target, options);
}

function summarize(r: TargetResult): string {
  if (r.skipped) return `\n!!!!! ${r.target.toUpperCase()} SKIPPED: ${r.skipped} !!!!!\n`;
  const load = r.load!;
  const parts = [
    `${r.target}: ${load.requests.mean.toFixed(0)} req/s, p50 ${load.latency.p50} ms, p99 ${load.latency.p99} ms, ${load['2xx']} x 2xx, ${load.non2xx} non-2xx`,
  ];
  const s = r.server!;
  parts.push(
    `RSS at load end ${s.memoryAtLoadEnd.rssMiB.toFixed(0)} MiB, after drain ${s.memoryAtEnd.rssMiB.toFixed(0)} MiB, peak ${s.memoryAtEnd.peakRssMiB.toFixed(0)} MiB`,
  );
  if (s.rssByMinute.length > 1) {
    const [first] = s.rssByMinute;
    const last = s.rssByMinute[s.rssByMinute.length - 1]!;
    parts.push(
      `RSS by minute of load ${s.rssByMinute.map((m) => m.toFixed(0)).join(', ')} MiB: last ÷ first ${(last / first!).toFixed(2)}`,
    );
  }
  if (r.pipeline) {
    const p = r.pipeline;
    parts.push(
      `lag at load end ${JSON.stringify(p.lagAtLoadEnd)}, drained in ${p.drainMs === null ? 'NEVER' : `${(p.drainMs / 1000).toFixed(1)} s`}`,
    );
    parts.push(`counters ${JSON.stringify(p.counters)}; stored ${JSON.stringify(p.stored)}`);
  }
  if (s.errorLogLines > 0) parts.push(`${s.errorLogLines} error log lines, first: ${s.firstErrors[0]}`);
  return parts.join('\n  ');
}

function readOptions(): BenchOptions | null {
  try {
    return parseBenchOptions(process.argv.slice(2), process.env);
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    process.stderr.write(`${err.message}\n`);
    return null;
  }
}

async function main(): Promise<number> {
  const options = readOptions();
  if (!options) return 2;
  const machine = machineInfo();
  const startedAt = new Date().toISOString();
  const shape =
    options.batch > 1 ? `${options.batch} events per /v1/event/batch request` : '1 event per /v1/event request';
  process.stdout.write(
    `ingest benchmark: ${options.connections} connections, ${shape}, ${options.durationSec} s per target, ${options.sessions} sessions${options.rate === null ? '' : `, Spoor offered ${options.rate} events/s`} (baseline: single events)\n`,
  );
  process.stdout.write(`machine: ${describeMachine(machine)}\n`);
  const results: TargetResult[] = [];
  try {
    for (const target of options.targets) {
      process.stdout.write(`\n-- ${target} --\n`);
      const result = await runTarget(target, options);
      results.push(result);
      process.stdout.write(`${summarize(result)}\n`);
    }
  } finally {
    await stopAllEngines();
  }
  const failures = findFailures(results);
  const report: BenchReport = { benchmark: 'ingest', startedAt, machine, options, results, failures };
  process.stdout.write(`\n${formatTable(results, options)}\n\nresults: ${await writeReport(report)}\n`);
  for (const skipped of results.filter((r) => r.skipped))
    process.stdout.write(`\n!!!!! ${skipped.target.toUpperCase()} SKIPPED: ${skipped.skipped} !!!!!\n`);
  if (failures.length === 0) return 0;
  process.stderr.write(`\nFAILED:\n${failures.map((f) => `  - ${f}`).join('\n')}\n`);
  return 1;
}

process.exitCode = await main();
