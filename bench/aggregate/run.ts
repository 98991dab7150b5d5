// `npm run bench:aggregate`: the worker's aggregation and transitions jobs over projects of 1M
// and 10M events, per mode, each against a baseline measured in the same run on the same store
// (CONVENTIONS.md, Benchmarks): events.countEnriched, the cheapest full pass over the same rows
// the store offers. The real handlers (aggregationJob, transitionsJob) run in this process
// against the real stores; modes and sizes run one after the other, each size on a fresh store.
// See docs/performance.md, Aggregate.
import { stopAllEngines } from '@spoor/testkit';
import { describeMachine, machineInfo } from '../ingest/machine-info.js';
import { parseAggregateOptions, UsageError, type AggregateBenchOptions } from './aggregate-options.js';
import {
  formatJobs,
  formatLoad,
  formatMemory,
  formatStalls,
  writeReport,
  type AggregateBenchReport,
} from './aggregate-report.js';
import { runSize } from './size-run.js';

function readOptions(): AggregateBenchOptions | null | 'usage' {
  try {
    return parseAggregateOptions(process.argv.slice(2), process.env);
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    process.stderr.write(`${err.message}\n`);
    return 'usage';
  }
}

/** Runs every mode and size; the report is rewritten after each, so a run cut short keeps what it measured. */
async function runAll(report: AggregateBenchReport): Promise<void> {
  const { options, results, failures } = report;
  try {
    for (const mode of options.modes) {
      for (const events of options.sizes) {
        process.stdout.write(`\n-- ${mode}, ${events.toLocaleString('en')} events --\n`);
        try {
          results.push(await runSize(mode, events, options));
        } catch (err) {
          // One mode or size failing (an engine missing or dying, a wrong result) still lets the others report.
          failures.push(`${mode} ${events}: ${(err as Error).stack ?? String(err)}`);
          process.stderr.write(`\n!!!!! ${mode.toUpperCase()} ${events} FAILED: ${(err as Error).message} !!!!!\n`);
        }
        await writeReport(report);
      }
    }
  } finally {
    await stopAllEngines();
  }
}

async function main(): Promise<number> {
  const options = readOptions();
  if (options === 'usage') return 2;
  if (options === null) return 0;
  const machine = machineInfo();
  const report: AggregateBenchReport = {
    benchmark: 'aggregate',
    startedAt: new Date().toISOString(),
    machine,
    options,
    results: [],
    failures: [],
  };
  process.stdout.write(
    `aggregate benchmark: ${options.sizes.map((n) => n.toLocaleString('en')).join(' and ')} events, ${options.modes.join(' and ')}, ${options.rounds} round(s), loaded in chunks of ${options.chunk.toLocaleString('en')}\n`,
  );
  process.stdout.write(`machine: ${describeMachine(machine)}\n`);
  await runAll(report);
  if (report.results.length) {
    process.stdout.write(`\nresult jobs, medians of ${options.rounds} round(s):\n${formatJobs(report.results)}\n`);
    process.stdout.write(`\n${formatStalls(report.results)}\n`);
    process.stdout.write(
      `\nload (not part of any ratio):\n${formatLoad(report.results)}\n\n${formatMemory(report.results)}\n`,
    );
  }
  process.stdout.write(`\nresults: ${await writeReport(report)}\n`);
  if (report.failures.length === 0) return 0;
  process.stderr.write(`\nFAILED:\n${report.failures.map((f) => `  - ${f}`).join('\n')}\n`);
  return 1;
}

process.exitCode = await main();
