import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import type { AutocannonResult } from '../ingest/load-runner.js';
import { readCpuSeconds, readMemory } from '../ingest/proc-stats.js';
import { freePort, ServerChild } from '../ingest/server-child.js';
import { spoorEnv, type SpoorMode } from '../ingest/spoor-deployment.js';
import { createCostAccount, type CostAccount } from './cost-account.js';
import type { CostOptions, RowSpec } from './cost-options.js';
import { ENGINE_NAMES, findEnginePids, type EngineName } from './engine-processes.js';
import { PhasedLoad, type PhasedLoadSpec } from './phased-load.js';
import { measureReadability, postEvent, type Readability } from './readability-probe.js';
import { readAccepted, readStoreInserts } from './server-readings.js';
import {
  cpuByGroup,
  readThreads,
  ThreadGroups,
  type GroupCpu,
  type ThreadStat,
  type ThreadVerdict,
} from './thread-cpu.js';

const HOST_MAIN = fileURLToPath(new URL('../../../services/host/dist/src/main.js', import.meta.url));
/** After readiness and the signup: DuckDB narrows 2 s after its last wide scan (the migrations). */
const SETTLE_MS = 3_000;

export interface RowResult {
  mode: SpoorMode;
  row: RowSpec;
  /** Why the row did not run (an engine missing); nothing else is set then. */
  skipped?: string;
  /** What ended the row early. */
  failed?: string;
  windowSec?: number;
  /** Events ingest accepted within the window (its /healthz counter). */
  acceptedEvents?: number;
  /** The window's autocannon result (absent for idle rows). */
  load?: AutocannonResult;
  spoor?: {
    pid: number;
    cpuSec: number;
    /** VmHWM at the window's end. */
    peakRssMiB: number;
    threadGroups: Record<string, GroupCpu>;
    threads: ThreadVerdict[];
  };
  /** CPU seconds of each engine's process over the window; null: not a process of this bench. */
  engines?: Record<EngineName, { pid: number; cpuSec: number } | null>;
  /** Increase of spoor_store_inserts_total by table over the window; null: /metrics has no such counter. */
  storeInserts?: Record<string, number> | null;
  readability?: Readability | null;
  errorLogLines?: number;
  firstErrors?: string[];
  exitCode?: number | null;
  /** The signal that ended the process instead (SIGKILL after a SIGTERM ignored for 20 s, a crash, another's kill). */
  exitSignal?: string | null;
}

interface Look {
  at: number;
  cpuSec: number;
  threads: ThreadStat[];
  engines: Partial<Record<EngineName, number>>;
  accepted: number;
  inserts: Record<string, number> | null;
}

/** The environment `npm start` would run with, as bench/ingest's deployments set it up. */
async function rowEnv(mode: SpoorMode, dataDir: string, port: number): Promise<Record<string, string> | null> {
  const env = await spoorEnv(mode, dataDir, port);
  if (!env) return null;
  // The lag is read at its default pace (spoorEnv's 100 ms is for the ingest bench's drain
  // timing and would be a cost here). One signup per row; an engine that outlives rows (SPOOR_REDIS_URL)
  // keeps the rate counters, hence the higher signup limit.
  const { SPOOR_LAG_SAMPLE_MS: _lagSampleMs, ...rest } = env;
  return { ...rest, SPOOR_RATE_SIGNUP_IP: '1000' };
}

/**
 * Readings at one edge of the window. The HTTP ones (/healthz, /metrics) cost the server CPU of
 * their own, a few ms, which is all an idle row would measure over 30 s: they are taken outside
 * the window, before the /proc reads at its start and after them at its end.
 */
async function look(
  edge: 'start' | 'end',
  pid: number,
  url: string,
  engines: Partial<Record<EngineName, number>>,
): Promise<Look> {
  const http = () => Promise.all([readAccepted(url), readStoreInserts(url)]);
  const before = edge === 'start' ? await http() : null;
  const at = performance.now();
  const cpuSec = readCpuSeconds(pid);
  const threads = readThreads(pid);
  const engineCpu = Object.fromEntries(Object.entries(engines).map(([name, p]) => [name, readCpuSeconds(p)]));
  const [accepted, inserts] = before ?? (await http());
  return { at, cpuSec, threads, engines: engineCpu, accepted, inserts };
}

/** The first event through the endpoint, so a refused body fails the row at once; a 503 is waited through. */
async function firstEvent(url: string, account: CostAccount, deadline = Date.now() + 120_000): Promise<void> {
  for (;;) {
    const posted = await postEvent(url, account, 'cost-first');
    if ('eventId' in posted) return;
    if (posted.status !== 503 || Date.now() > deadline)
      throw new Error(`the bench event was refused: ${posted.status} ${posted.body}`);
    await sleep(250);
  }
}

function loadOf(row: RowSpec, o: CostOptions, url: string, account: CostAccount): PhasedLoad | null {
  if (row.requestsPerSec === 0) return null;
  const phases: PhasedLoadSpec['phases'] = [
    ...(o.warmupSec > 0 ? [{ name: 'warmup' as const, durationSec: o.warmupSec }] : []),
    { name: 'window', durationSec: o.durationSec },
    ...(o.probeSec > 0 ? [{ name: 'probe' as const, durationSec: o.probeSec }] : []),
  ];
  return new PhasedLoad({
    load: {
      url,
      origin: account.origin,
      project: account.project,
      connections: o.connections,
      sessions: o.sessions,
      batch: row.batch,
      requestsPerSec: row.requestsPerSec,
    },
    phases,
  });
}

function difference(end: Record<string, number>, start: Record<string, number>): Record<string, number> {
  return Object.fromEntries(Object.entries(end).map(([k, v]) => [k, v - (start[k] ?? 0)]));
}

/** A started, signed-up row's process and what the window needs to know of it. */
interface Running {
  child: ServerChild;
  url: string;
  account: CostAccount;
  enginePids: Partial<Record<EngineName, number>>;
  groups: ThreadGroups;
}

async function prepare(child: ServerChild, url: string, mode: SpoorMode): Promise<Running> {
  await child.waitUntilServing(`${url}/healthz`, 120_000);
  const account = await createCostAccount(url);
  await firstEvent(url, account);
  const found = mode === 'kafka' ? findEnginePids() : {};
  const enginePids = Object.fromEntries(
    Object.entries(found).filter((e): e is [EngineName, number] => e[1] !== null),
  ) as Partial<Record<EngineName, number>>;
  await sleep(SETTLE_MS);
  const groups = new ThreadGroups(child.pid);
  await groups.classifyIdle();
  return { child, url, account, enginePids, groups };
}

/** The measured window (after the warm-up): the looks at its edges turned into the row's figures. */
async function measureWindow(r: Running, load: PhasedLoad | null, o: CostOptions, result: RowResult): Promise<void> {
  const pid = r.child.pid;
  if (load) await load.started('window');
  else await sleep(o.idleWarmupSec * 1000);
  const start = await look('start', pid, r.url, r.enginePids);
  if (load) result.load = await load.ended('window');
  else await sleep(o.durationSec * 1000);
  const end = await look('end', pid, r.url, r.enginePids);

  result.windowSec = (end.at - start.at) / 1000;
  result.acceptedEvents = end.accepted - start.accepted;
  result.spoor = {
    pid,
    cpuSec: end.cpuSec - start.cpuSec,
    peakRssMiB: readMemory(pid).peakRssMiB,
    threadGroups: cpuByGroup(r.groups, start.threads, end.threads, end.cpuSec - start.cpuSec),
    threads: r.groups.list(),
  };
  if (result.mode === 'kafka') {
    const engines = {} as NonNullable<RowResult['engines']>;
    for (const name of ENGINE_NAMES) {
      const enginePid = r.enginePids[name];
      engines[name] =
        enginePid === undefined ? null : { pid: enginePid, cpuSec: end.engines[name]! - start.engines[name]! };
    }
    result.engines = engines;
  }
  // A labelled counter has no series before its first insert: absent at the start is 0 then.
  result.storeInserts = end.inserts ? difference(end.inserts, start.inserts ?? {}) : null;
}

/** Warm-up, window, then the probes, after the window so their polling is in no figure above. */
async function measure(child: ServerChild, url: string, o: CostOptions, result: RowResult): Promise<void> {
  const running = await prepare(child, url, result.mode);
  const load = loadOf(result.row, o, url, running.account);
  try {
    await measureWindow(running, load, o, result);
    result.readability = null;
    if (o.probeSec > 0) {
      if (load) await load.started('probe'); // the load goes on meanwhile
      result.readability = await measureReadability(url, running.account, o.probeSec);
    }
    await load?.exited;
  } finally {
    await load?.stop();
  }
}

/** One row: a fresh Spoor process on a fresh data directory, measured, stopped. */
export async function runRow(mode: SpoorMode, row: RowSpec, o: CostOptions): Promise<RowResult> {
  const dataDir = await mkdtemp(join(tmpdir(), `spoor-cost-${mode}-${row.name}-`));
  try {
    const port = await freePort();
    const env = await rowEnv(mode, dataDir, port);
    if (!env) return { mode, row, skipped: 'Kafka, ClickHouse or Redis could not be started by @spoor/testkit' };
    const result: RowResult = { mode, row };
    const child = new ServerChild(`${mode} ${row.name}`, HOST_MAIN, [], env);
    try {
      await measure(child, `http://127.0.0.1:${port}`, o, result);
    } catch (err) {
      // fetch() hides what went wrong in its cause (ECONNREFUSED, a reset, …).
      const cause = (err as Error).cause as Error | undefined;
      const gone = Number.isNaN(readCpuSeconds(child.pid)) ? '; the Spoor process had already exited' : '';
      result.failed = `${(err as Error).message}${cause?.message ? ` (${cause.message})` : ''}${gone}`;
      process.stderr.write(`${(err as Error).stack}\n`);
    } finally {
      result.exitCode = await child.stop();
      result.exitSignal = child.exitSignal;
      result.errorLogLines = child.errorLines;
      result.firstErrors = child.firstErrors;
    }
    return result;
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
}
