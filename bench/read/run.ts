// `npm run bench:read`: read-path latency of the gateway on a loaded store, against GET /healthz
// of the same process in the same run (CONVENTIONS.md, Benchmarks). Modes run one after the
// other; the server and the load generator are separate processes. See docs/performance.md, Read.
import { stopAllEngines } from '@spoor/testkit';
import { describeMachine, machineInfo } from '../ingest/machine-info.js';
import { runMode, type ModeResult } from './mode-run.js';
import { parseReadOptions, UsageError, type ReadBenchOptions } from './read-options.js';
import { findFailures, formatMode, writeReport, type ReadBenchReport } from './read-report.js';

function readOptions(): ReadBenchOptions | null {
  try {
    return parseReadOptions(process.argv.slice(2), process.env);
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
  process.stdout.write(
    `read benchmark: ${options.events.toLocaleString('en')} events in ${options.sessions.toLocaleString('en')} sessions, ${options.connections} connections, ${options.durationSec} s per endpoint\n`,
  );
  process.stdout.write(`machine: ${describeMachine(machine)}\n`);
  const results: ModeResult[] = [];
  const crashed: string[] = [];
  try {
    for (const mode of options.modes) {
      process.stdout.write(`\n-- ${mode} --\n`);
      try {
        results.push(await runMode(mode, options));
      } catch (err) {
        // One mode failing (an engine dying, a wrong body) still lets the other one report.
        crashed.push(`${mode}: ${(err as Error).stack ?? String(err)}`);
        process.stderr.write(`\n!!!!! ${mode.toUpperCase()} FAILED: ${(err as Error).message} !!!!!\n`);
      }
    }
  } finally {
    await stopAllEngines();
  }
  const failures = [...crashed, ...findFailures(results)];
  const report: ReadBenchReport = { benchmark: 'read', startedAt, machine, options, results, failures };
  for (const m of results) process.stdout.write(`\n${formatMode(m)}\n`);
  process.stdout.write(`\nresults: ${await writeReport(report)}\n`);
  if (failures.length === 0) return 0;
  process.stderr.write(`\nFAILED:\n${failures.map((f) => `  - ${f}`).join('\n')}\n`);
  return 1;
}

process.exitCode = await main();
