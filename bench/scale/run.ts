// `npm run bench:scale` (issue 19): does a second copy of each consumer share the work? On Kafka,
// ClickHouse and Redis, the raw topic is pre-filled and drained by 1, then 2 copies of each
// consumer (separate processes); events/s, per copy and the ratio are printed, and every event
// must be stored and counted exactly once. On 2 cores the ratio shows coordination's cost more
// than a speed-up: the engines and every copy share the same two cores.
import { mkdir, writeFile } from 'node:fs/promises';
import { stopAllEngines } from '@spoor/testkit';
import { describeMachine, machineInfo } from '../ingest/machine-info.js';
import { parseScaleOptions, UsageError, type ScaleOptions } from './scale-options.js';
import { runRound, type RoundResult } from './scale-round.js';

const log = (line: string) => process.stdout.write(`${line}\n`);

function table(rounds: RoundResult[]): string {
  const base = rounds[0]!;
  const rows = [
    "| copies of each consumer | events | drained in s | events/s | per copy | × 1 copy | consumers' CPU s | stored raw/enriched/in sessions | sessions checked in order |",
    '|---:|---:|---:|---:|---:|---:|---:|---|---:|',
  ];
  for (const r of rounds) {
    const s = r.stored;
    rows.push(
      `| ${r.copies} | ${r.events} | ${r.seconds.toFixed(1)} | ${Math.round(r.perSec)} | ${Math.round(r.perSec / r.copies)} | ${(r.perSec / base.perSec).toFixed(2)} | ${r.cpuSec.toFixed(1)} | ${s.raw}/${s.enriched}/${s.sessionEvents} | ${s.sessionsInOrder}/${Math.min(50, s.sessions)} |`,
    );
  }
  return rows.join('\n');
}

/** Every event stored raw and enriched once and counted once in a session, every checked session whole. */
function exact(r: RoundResult): boolean {
  const s = r.stored;
  return (
    s.raw === r.events &&
    s.enriched === r.events &&
    s.sessionEvents === r.events &&
    s.sessionsInOrder === Math.min(50, s.sessions)
  );
}

async function main(): Promise<number> {
  let o: ScaleOptions;
  try {
    o = parseScaleOptions(process.argv.slice(2), process.env);
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    process.stderr.write(`${err.message}\n`);
    return 2;
  }
  const machine = machineInfo();
  log(
    `scale benchmark: ${o.events.toLocaleString('en')} events per round in runs of ${o.perSession} over ${o.sessions} sessions, copies ${o.copies.join(' then ')}; ${describeMachine(machine)}`,
  );
  const rounds: RoundResult[] = [];
  try {
    for (const copies of o.copies) {
      const r = await runRound(copies, o, log);
      if ('skipped' in r) {
        log(`\n!!!!! SKIPPED: ${r.skipped} !!!!!`);
        return 1;
      }
      log(
        `${copies} cop${copies === 1 ? 'y' : 'ies'}: drained in ${r.seconds.toFixed(1)} s, ${Math.round(r.perSec).toLocaleString('en')} events/s`,
      );
      rounds.push(r);
    }
  } finally {
    await stopAllEngines();
  }
  log(`\n${table(rounds)}`);
  const dir = new URL('../../../bench/results/', import.meta.url);
  await mkdir(dir, { recursive: true });
  const file = new URL(`scale-${new Date().toISOString().replace(/[:.]/g, '-').slice(0, 19)}Z.json`, dir);
  await writeFile(file, JSON.stringify({ benchmark: 'scale', machine, options: o, rounds }, null, 2));
  log(`results: ${file.pathname}`);
  const wrong = rounds.filter((r) => !exact(r));
  for (const r of wrong)
    log(`!!!!! ${r.copies} copies: not every event stored and counted exactly once (see the table) !!!!!`);
  return wrong.length ? 1 : 0;
}

process.exitCode = await main();
