// `npm run bench:pipeline`: events.raw pre-filled with 1M events, then each stage alone draining
// its input (enricher, sessionizer, classifier), beside its floor measured in the same run
// (issue 14, target 6; docs/performance.md, Pipeline stages).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { openStore } from '@spoor/store';
import { stopAllEngines } from '@spoor/testkit';
import { describeMachine, machineInfo } from '../ingest/machine-info.js';
import { freePort } from '../ingest/server-child.js';
import { spoorEnv } from '../ingest/spoor-deployment.js';
import { BENCH_ORIGIN, BENCH_PROJECT } from '../ingest/bench-event.js';
import type { BenchMode } from '../shared/mode-stores.js';
import { parsePipelineOptions, UsageError, type PipelineOptions } from './pipeline-options.js';
import { prefillRaw } from './raw-prefill.js';
import { runFloors, runStage, stageNames, withAdapters, type StageResult } from './stage-runs.js';

const log = (line: string) => process.stdout.write(`${line}\n`);

interface ModeResult {
  mode: BenchMode;
  skipped?: string;
  prefillSec?: number;
  stages?: StageResult[];
  floors?: StageResult[];
}

async function floorStore(mode: BenchMode, env: Record<string, string>, dataDir: string) {
  const store =
    mode === 'embedded'
      ? await openStore({
          kind: 'duckdb',
          path: join(dataDir, 'floor.duckdb'),
          memoryLimit: env['SPOOR_DUCKDB_MEMORY'] ?? '1GB',
        })
      : await openStore({
          kind: 'clickhouse',
          url: env['SPOOR_CLICKHOUSE_URL']!,
          database: `${env['SPOOR_CLICKHOUSE_DATABASE']}_floor`,
        });
  await store.migrate();
  return store;
}

async function runMode(mode: BenchMode, o: PipelineOptions): Promise<ModeResult> {
  const dataDir = await mkdtemp(join(tmpdir(), `spoor-bench-pipeline-${mode}-`));
  try {
    const env = await spoorEnv(mode, dataDir, await freePort());
    if (!env) return { mode, skipped: 'Kafka, ClickHouse or Redis could not be started by @spoor/testkit' };
    const projectId = randomUUID();
    const t0 = performance.now();
    await withAdapters(env, async ({ store, bus, topics }) => {
      await store.projects.create({
        project_id: projectId,
        origin: BENCH_ORIGIN,
        project: BENCH_PROJECT,
        account_id: 'acct-bench',
        verified: true,
        verification_token: randomUUID(),
        created_at: Date.now(),
      });
      await prefillRaw(bus, topics.rawEvents, projectId, o, log);
    });
    const prefillSec = (performance.now() - t0) / 1000;
    log(`${mode}: pre-filled ${o.events.toLocaleString('en')} raw events in ${prefillSec.toFixed(1)} s`);
    const stages: StageResult[] = [];
    for (const stage of stageNames) {
      const r = await runStage(env, stage);
      log(
        `${mode}: ${stage} drained ${r.messages.toLocaleString('en')} messages in ${r.seconds.toFixed(1)} s: ${Math.round(r.perSec).toLocaleString('en')}/s, ${r.cpuUsPerMessage.toFixed(0)} µs CPU each`,
      );
      stages.push(r);
    }
    const store = await floorStore(mode, env, dataDir);
    let floors: StageResult[];
    try {
      floors = await runFloors(store, {
        projectId,
        events: o.events,
        sessions: o.sessions,
        perSession: o.perSession,
        updates: stages[2]!.messages,
      });
    } finally {
      await store.close();
    }
    for (const f of floors)
      log(
        `${mode}: ${f.stage} floor ${Math.round(f.perSec).toLocaleString('en')}/s, ${f.cpuUsPerMessage.toFixed(0)} µs CPU each`,
      );
    return { mode, prefillSec, stages, floors };
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
}

function table(results: ModeResult[]): string {
  const rows = [
    '| mode | stage | messages | stage msg/s | floor msg/s | stage ÷ floor | stage CPU µs/msg | floor CPU µs/msg |',
    '|---|---|---:|---:|---:|---:|---:|---:|',
  ];
  for (const r of results) {
    if (r.skipped) {
      rows.push(`| ${r.mode} | SKIPPED: ${r.skipped} | | | | | | |`);
      continue;
    }
    r.stages!.forEach((s, i) => {
      const f = r.floors![i]!;
      rows.push(
        `| ${r.mode} | ${s.stage} | ${s.messages} | ${Math.round(s.perSec)} | ${Math.round(f.perSec)} | ${(s.perSec / f.perSec).toFixed(2)} | ${s.cpuUsPerMessage.toFixed(0)} | ${f.cpuUsPerMessage.toFixed(0)} |`,
      );
    });
    const slowest = [...r.stages!].sort((a, b) => a.perSec - b.perSec)[0]!;
    rows.push(`| ${r.mode} | slowest: ${slowest.stage} | | | | | | |`);
  }
  return rows.join('\n');
}

async function main(): Promise<number> {
  let o: PipelineOptions;
  try {
    o = parsePipelineOptions(process.argv.slice(2), process.env);
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    process.stderr.write(`${err.message}\n`);
    return 2;
  }
  log(
    `pipeline benchmark: ${o.events.toLocaleString('en')} events in runs of ${o.perSession} over ${o.sessions} sessions; ${describeMachine(machineInfo())}`,
  );
  const results: ModeResult[] = [];
  try {
    for (const mode of o.modes) results.push(await runMode(mode, o));
  } finally {
    await stopAllEngines();
  }
  log(`\n${table(results)}`);
  for (const r of results.filter((x) => x.skipped)) log(`\n!!!!! ${r.mode.toUpperCase()} SKIPPED: ${r.skipped} !!!!!`);
  return 0;
}

process.exitCode = await main();
