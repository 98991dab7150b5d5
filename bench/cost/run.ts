// `npm run bench:cost` (issue 41): what Spoor costs at the loads real sites send. Fixed loads —
// idle, single events at fixed rates, batches — each in a fresh `npm start` process (embedded,
// or the all-in-one process on Kafka, ClickHouse and Redis) on a fresh data directory, loaded
// from a separate process; per row the achieved rate, ingest latency, CPU per event of the
// process and of each group of its threads, of each engine, peak RSS, inserts reaching the
// store and how long until an event is readable. See cost-row.ts for one row's phases.
import { stopAllEngines } from '@spoor/testkit';
import { describeMachine, machineInfo } from '../ingest/machine-info.js';
import { parseCostOptions, rowLabel, UsageError, type CostOptions } from './cost-options.js';
import { formatMainTable, formatThreadTable, summarizeRow, writeReport } from './cost-report.js';
import { runRow, type RowResult } from './cost-row.js';

const log = (line: string) => process.stdout.write(`${line}\n`);

function readOptions(): CostOptions | null {
  try {
    return parseCostOptions(process.argv.slice(2), process.env);
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    process.stderr.write(`${err.message}\n`);
    return null;
  }
}

/** Every row of every mode; Kafka mode's engines are fresh for each row, so no row inherits another's merges. */
async function runAll(o: CostOptions, results: RowResult[]): Promise<void> {
  for (const mode of o.modes) {
    let skipped: string | null = null;
    for (const row of o.rows) {
      if (skipped) {
        results.push({ mode, row, skipped });
        log(summarizeRow(results[results.length - 1]!));
        continue;
      }
      log(
        `${mode} ${rowLabel(row)}: starting (fresh process and data directory${mode === 'kafka' ? ', fresh engines' : ''})`,
      );
      try {
        const result = await runRow(mode, row, o);
        skipped = result.skipped ?? null;
        results.push(result);
        log(summarizeRow(result));
      } finally {
        if (mode === 'kafka') await stopAllEngines();
      }
    }
  }
}

async function main(): Promise<number> {
  const o = readOptions();
  if (!o) return 2;
  const machine = machineInfo();
  const startedAt = new Date().toISOString();
  log(
    `cost benchmark: modes ${o.modes.join(', ')}; rows ${o.rows.map(rowLabel).join(', ')}; ${o.warmupSec} s warm-up (idle: ${o.idleWarmupSec} s), ${o.durationSec} s measured, ${o.probeSec} s readability probes per row; ${o.connections} connections`,
  );
  log(`machine: ${describeMachine(machine)}`);
  const results: RowResult[] = [];
  try {
    await runAll(o, results);
  } finally {
    await stopAllEngines();
  }
  log(`\n${formatMainTable(results)}`);
  log(
    '\nCPU under load is µs per accepted event; idle rows (and rows that accepted nothing) show ms of CPU per second. Spoor by thread group (bench/cost/thread-cpu.ts):\n',
  );
  log(formatThreadTable(results));
  log(`\nresults: ${await writeReport({ benchmark: 'cost', startedAt, machine, options: o, rows: results })}`);
  const skipped = results.filter((r) => r.skipped);
  for (const mode of new Set(skipped.map((r) => r.mode)))
    log(`\n!!!!! ${mode.toUpperCase()} SKIPPED: ${skipped.find((r) => r.mode === mode)!.skipped} !!!!!`);
  const failed = results.filter((r) => r.failed || (r.load && r.load.non2xx + r.load.errors > 0));
  if (failed.length === 0) return 0;
  process.stderr.write(
    `\nFAILED:\n${failed.map((r) => `  - ${r.mode} ${rowLabel(r.row)}: ${r.failed ?? `${r.load!.non2xx} non-2xx, ${r.load!.errors} socket errors`}`).join('\n')}\n`,
  );
  return 1;
}

process.exitCode = await main();
