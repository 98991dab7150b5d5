// `npm run bench:classify`: the classifier's throughput with 50 rules and the backfill of a
// 100,000-session project, per mode, each against a baseline measured in the same run
// (CONVENTIONS.md, Benchmarks): pure rule evaluation of the same sessions for the classifier, a
// bare page-through of the same sessions for the backfill. The real code paths
// (SessionClassifier, backfillJob) run in this process against the real stores; modes run one
// after the other. See docs/performance.md, Classify.
import { stopAllEngines } from '@spoor/testkit';
import { describeMachine, machineInfo } from '../ingest/machine-info.js';
import { parseClassifyOptions, UsageError, type ClassifyBenchOptions } from './classify-options.js';
import {
  formatBackfill,
  formatCallBreakdown,
  formatClassify,
  writeReport,
  type ClassifyBenchReport,
} from './classify-report.js';
import { runMode, type ModeResult } from './mode-run.js';

function readOptions(): ClassifyBenchOptions | null | 'usage' {
  try {
    return parseClassifyOptions(process.argv.slice(2), process.env);
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    process.stderr.write(`${err.message}\n`);
    return 'usage';
  }
}

async function runModes(options: ClassifyBenchOptions, results: ModeResult[], failures: string[]): Promise<void> {
  try {
    for (const mode of options.modes) {
      process.stdout.write(`\n-- ${mode} --\n`);
      try {
        results.push(await runMode(mode, options));
      } catch (err) {
        // One mode failing (an engine missing or dying) still lets the other one report.
        failures.push(`${mode}: ${(err as Error).stack ?? String(err)}`);
        process.stderr.write(`\n!!!!! ${mode.toUpperCase()} FAILED: ${(err as Error).message} !!!!!\n`);
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
  const startedAt = new Date().toISOString();
  process.stdout.write(
    `classify benchmark: 50 rules; ${options.rounds} x ${options.classifySessions.toLocaleString('en')} sessions classified in batches of ${options.batch}; backfill of ${options.sessions.toLocaleString('en')} sessions\n`,
  );
  process.stdout.write(`machine: ${describeMachine(machine)}\n`);
  const results: ModeResult[] = [];
  const failures: string[] = [];
  await runModes(options, results, failures);
  const report: ClassifyBenchReport = { benchmark: 'classify', startedAt, machine, options, results, failures };
  if (results.length) {
    process.stdout.write(`\nclassify, ${options.rounds} round(s), medians:\n${formatClassify(results)}\n`);
    process.stdout.write(`\nbackfill:\n${formatBackfill(results)}\n\n${formatCallBreakdown(results)}\n`);
  }
  process.stdout.write(`\nresults: ${await writeReport(report)}\n`);
  if (failures.length === 0) return 0;
  process.stderr.write(`\nFAILED:\n${failures.map((f) => `  - ${f}`).join('\n')}\n`);
  return 1;
}

process.exitCode = await main();
