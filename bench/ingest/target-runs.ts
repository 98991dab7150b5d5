import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BENCH_ORIGIN, benchEventBody } from './bench-event.js';
import type { BenchOptions, TargetName } from './bench-options.js';
import { runLoad, type AutocannonResult } from './load-runner.js';
import { readHealthz, waitForDrain, type DrainResult } from './pipeline-drain.js';
import { readCpuSeconds, readMemory, type ProcMemory } from './proc-stats.js';
import { freePort, ServerChild } from './server-child.js';
import { countStored, registerBenchProject, spoorEnv, type SpoorMode, type StoredCounts } from './spoor-deployment.js';

const BASELINE_SERVER = fileURLToPath(new URL('./baseline-server.js', import.meta.url));
const HOST_MAIN = fileURLToPath(new URL('../../../services/host/dist/src/main.js', import.meta.url));
const DRAIN_TIMEOUT_MS = 10 * 60_000;

export interface TargetResult {
  target: TargetName;
  /** Why the target did not run (an engine missing); every other field is then absent. */
  skipped?: string;
  load?: AutocannonResult;
  /** The server child: memory at the end, CPU seconds used during load and drain. */
  server?: {
    /** RSS at the end of each whole minute of load, MiB (issue 14, target 5: flat over 5 minutes). */
    rssByMinute: number[];
    memoryAtLoadEnd: ProcMemory;
    memoryAtEnd: ProcMemory;
    cpuSec: number;
    errorLogLines: number;
    firstErrors: string[];
  };
  pipeline?: DrainResult & { stored: StoredCounts | null; probeAccepted: number };
}

/** (a) The bare node:http server. */
export async function runBaseline(options: BenchOptions): Promise<TargetResult> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child = new ServerChild('baseline', BASELINE_SERVER, [String(port)], {});
  try {
    await child.waitUntilServing(url, 10_000);
    const cpu0 = readCpuSeconds(child.pid);
    // The unit of every ratio (issue 14): single events at 50 connections, whatever Spoor is sent.
    const connections = options.batch > 1 ? 50 : options.connections;
    const load = await runLoad({
      url,
      origin: BENCH_ORIGIN,
      connections,
      durationSec: options.durationSec,
      sessions: options.sessions,
      batch: 1,
    });
    const memory = readMemory(child.pid);
    const server = {
      rssByMinute: [],
      memoryAtLoadEnd: memory,
      memoryAtEnd: memory,
      cpuSec: readCpuSeconds(child.pid) - cpu0,
      errorLogLines: child.errorLines,
      firstErrors: child.firstErrors,
    };
    return { target: 'baseline', load, server };
  } finally {
    await child.stop();
  }
}

/**
 * One event through the real endpoint before the load, so a rejected body fails at once,
 * legibly. /healthz answers 200 once every service started (readiness); a 503 with Retry-After
 * is still waited through.
 */
async function probeEvent(url: string, deadline = Date.now() + 120_000): Promise<void> {
  for (;;) {
    const res = await fetch(`${url}/v1/event`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: BENCH_ORIGIN },
      body: benchEventBody(0, Date.now()),
    });
    const body = await res.text();
    if (res.status === 200) return;
    if (res.status !== 503 || Date.now() > deadline)
      throw new Error(`the bench event was refused: ${res.status} ${body.slice(0, 500)}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/**
 * (b) embedded and (c) Kafka mode: the all-in-one process as `npm start` runs it; `ingest`: the
 * same process on the embedded default with SPOOR_SERVICES=ingest, the front door alone (no
 * consumers, so nothing to drain or count); `kafka-split`: Kafka mode with ingest in one process
 * and the enricher, sessionizer and classifier in a second one (issue 14, target 4). The load,
 * CPU and memory figures are the front door's process; the drain is read from the consumers'.
 */
export async function runSpoor(
  target: 'ingest' | 'kafka-split' | SpoorMode,
  options: BenchOptions,
): Promise<TargetResult> {
  const mode: SpoorMode = target === 'embedded' || target === 'ingest' ? 'embedded' : 'kafka';
  const frontDoorOnly = target === 'ingest';
  const split = target === 'kafka-split';
  const dataDir = await mkdtemp(join(tmpdir(), `spoor-bench-${target}-`));
  try {
    const port = await freePort();
    const modeEnv = await spoorEnv(mode, dataDir, port);
    const env = modeEnv && (frontDoorOnly || split) ? { ...modeEnv, SPOOR_SERVICES: 'ingest' } : modeEnv;
    if (!modeEnv || !env)
      return { target, skipped: 'Kafka, ClickHouse or Redis could not be started by @spoor/testkit' };
    const project = await registerBenchProject(env);
    const url = `http://127.0.0.1:${port}`;
    const consumersPort = split ? await freePort() : 0;
    const consumersUrl = split ? `http://127.0.0.1:${consumersPort}` : url;
    const consumers = split
      ? new ServerChild(`${target} consumers`, HOST_MAIN, [], {
          ...modeEnv,
          SPOOR_PORT: String(consumersPort),
          SPOOR_SERVICES: 'enricher,sessionizer,classifier',
          SPOOR_HEALTH_HTTP: 'true',
        })
      : null;
    const child = new ServerChild(target, HOST_MAIN, [], env);
    let result: TargetResult;
    try {
      await consumers?.waitUntilServing(`${consumersUrl}/healthz`, 120_000);
      await child.waitUntilServing(`${url}/healthz`, 120_000);
      await probeEvent(url);
      const cpu0 = readCpuSeconds(child.pid);
      const rssByMinute: number[] = [];
      const loadStart = Date.now();
      const sampler = setInterval(() => {
        const minute = Math.floor((Date.now() - loadStart) / 60_000);
        if (minute > rssByMinute.length) rssByMinute.push(readMemory(child.pid).rssMiB);
      }, 1_000);
      const load = await runLoad({
        url,
        origin: BENCH_ORIGIN,
        connections: options.connections,
        durationSec: options.durationSec,
        sessions: options.sessions,
        batch: options.batch,
        ...(options.rate === null ? {} : { requestsPerSec: Math.max(1, Math.round(options.rate / options.batch)) }),
      }).finally(() => clearInterval(sampler));
      const memoryAtLoadEnd = readMemory(child.pid);
      // The last whole minute ends with the load itself.
      if (rssByMinute.length < Math.floor(options.durationSec / 60)) rssByMinute.push(memoryAtLoadEnd.rssMiB);
      const drain = frontDoorOnly ? null : await waitForDrain(consumersUrl, Date.now(), DRAIN_TIMEOUT_MS);
      // Ingest's counters (accepted, refused) live in its own process.
      if (drain && split) drain.counters = { ...drain.counters, ...(await readHealthz(url)).counters };
      const server = {
        rssByMinute,
        memoryAtLoadEnd,
        memoryAtEnd: readMemory(child.pid),
        cpuSec: readCpuSeconds(child.pid) - cpu0,
        errorLogLines: child.errorLines + (consumers?.errorLines ?? 0),
        firstErrors: [...child.firstErrors, ...(consumers?.firstErrors ?? [])],
      };
      result = drain
        ? { target, load, server, pipeline: { ...drain, stored: null, probeAccepted: 1 } }
        : { target, load, server };
    } finally {
      const code = await child.stop();
      if (code !== 0) process.stderr.write(`${target}: the Spoor process exited with ${code} on SIGTERM\n`);
      const consumersCode = await consumers?.stop();
      if (consumersCode !== undefined && consumersCode !== 0)
        process.stderr.write(`${target}: the consumers' process exited with ${consumersCode} on SIGTERM\n`);
    }
    if (result.pipeline) result.pipeline.stored = await countStored(env, project.project_id, options.sessions + 10);
    return result;
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
}
