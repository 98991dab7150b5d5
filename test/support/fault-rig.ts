import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { closeSync, openSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { loadConfig, type Config } from '@spoor/config';
import { createLogger } from '@spoor/service-log';
import { openAdapters } from '@spoor/runtime';
import type { ProjectRecord } from '@spoor/schemas';
import {
  clickhouseUrl,
  freePort,
  kafkaBrokers,
  makeTempDir,
  redisUrl,
  requireEngine,
  restartableEngine,
  type RestartableEngine,
} from '@spoor/testkit';
import { modeEnv, type Mode } from './engine-env.js';
import { registerProject, waitFor } from './spoor-harness.js';

// Fault tests (issue 16, docs/reliability.md): the all-in-one process on Kafka, ClickHouse and Redis,
// one of which the test owns alone and halts under load. Everything else is the real thing.

const HOST_MAIN = join(process.cwd(), 'services/host/dist/src/main.js');
export const FAULT_ORIGIN = 'https://faults.example';
export const FAULT_PROJECT = 'faults/web';
export type EngineName = 'kafka' | 'clickhouse' | 'redis';

export interface FaultRig {
  engine: RestartableEngine;
  /** A load client that the rig stops with itself, also when a test fails midway. */
  load(clientTimeoutMs: number): LoadClient;
  spoor: SpoorProcess;
  config: Config;
  project: ProjectRecord;
  stop(): Promise<void>;
}

/**
 * Starts `owned` privately (restartable), takes the two other engines shared, registers the
 * project, and starts Spoor as `npm start` runs it, in a child process. Null: engines missing.
 */
export async function startFaultRig(
  owned: EngineName,
  extraEnv: Record<string, string> = {},
): Promise<FaultRig | null> {
  const engine = await restartableEngine(owned);
  if (!engine) return null;
  const url = (name: EngineName, shared: () => Promise<string | null>) =>
    name === owned ? Promise.resolve(engine.url) : shared();
  const [brokers, clickhouse, redis] = await Promise.all([
    url('kafka', kafkaBrokers),
    url('clickhouse', clickhouseUrl),
    url('redis', redisUrl),
  ]);
  if (!brokers || !clickhouse || !redis) {
    await engine.stop();
    return null;
  }
  const port = await freePort();
  const env = { ...(await deploymentEnv(brokers, clickhouse, redis)), SPOOR_PORT: String(port), ...extraEnv };
  const config = loadConfig(env);
  const project = await registerFaultProject(config);
  const spoor = new SpoorProcess(env, `http://127.0.0.1:${port}`);
  await spoor.start();
  const loads: LoadClient[] = [];
  return {
    engine,
    load(clientTimeoutMs) {
      const client = new LoadClient(spoor.url, clientTimeoutMs);
      loads.push(client);
      return client;
    },
    spoor,
    config,
    project,
    async stop() {
      await Promise.all(loads.map((l) => l.stop()));
      await spoor.kill('SIGTERM');
      await engine.stop();
    },
  };
}

/** One deployment's environment on these engines: a fresh topic prefix and database. */
export async function deploymentEnv(
  brokers: string,
  clickhouse: string,
  redis: string,
): Promise<Record<string, string>> {
  const run = randomUUID().replace(/-/g, '').slice(0, 10);
  return {
    SPOOR_DATA_DIR: await makeTempDir('faults'),
    SPOOR_PORT: '0',
    SPOOR_LOG_LEVEL: 'error',
    SPOOR_KAFKA_BROKERS: brokers,
    SPOOR_CLICKHOUSE_URL: clickhouse,
    SPOOR_CLICKHOUSE_DATABASE: `spoor_${run}`,
    SPOOR_REDIS_URL: redis,
    SPOOR_TOPIC_PREFIX: `t${run}.`,
    // Load from one address: the per-address limit is not what these tests are about.
    SPOOR_RATE_INGEST_IP: '0',
    SPOOR_RATE_INGEST_PROJECT: '0',
    // /healthz and /metrics show the lag as last read in the background: read it every 100 ms here.
    SPOOR_LAG_SAMPLE_MS: '100',
  };
}

/**
 * A fresh deployment of `mode` (embedded, or Kafka, ClickHouse and Redis) for one test: its
 * environment on a free port, its config and the registered project. Skips the test when the
 * mode's engines cannot start. Rate limits off and lag read every 100 ms, as in deploymentEnv.
 */
export async function modeDeployment(ctx: Mocha.Context, mode: Mode, extraEnv: Record<string, string> = {}) {
  const env = await modeEnv(mode, await makeTempDir(`faults-${mode}`));
  requireEngine(ctx, env ? 'ok' : null, `engines for ${mode} mode`);
  const port = await freePort();
  const base: Record<string, string> = {
    ...env!,
    SPOOR_PORT: String(port),
    SPOOR_LOG_LEVEL: 'error',
    SPOOR_LAG_SAMPLE_MS: '100',
    SPOOR_RATE_INGEST_IP: '0',
    ...extraEnv,
  };
  const config = loadConfig(base);
  return { url: `http://127.0.0.1:${port}`, env: base, config, project: await registerFaultProject(config) };
}

/** Registers the fault tests' project through the store, before any Spoor process starts. */
export async function registerFaultProject(config: Config): Promise<ProjectRecord> {
  const adapters = await openAdapters(config, createLogger('fault-rig', 'error'));
  try {
    return await registerProject(adapters.store, FAULT_ORIGIN, FAULT_PROJECT);
  } finally {
    await adapters.close();
  }
}

/**
 * One process of a split deployment: the services `kind` names (SPOOR_SERVICES), on its own port
 * with /healthz and /metrics, its own data dir; pushed on `into` before it starts (so a test's
 * cleanup stops it even when the start fails), and started.
 */
export async function startSplitProcess(
  env: Record<string, string>,
  kind: string,
  into: SpoorProcess[],
  logLevel = 'warn',
): Promise<SpoorProcess> {
  const port = await freePort();
  const p = new SpoorProcess(
    {
      ...env,
      SPOOR_SERVICES: kind,
      SPOOR_PORT: String(port),
      SPOOR_HEALTH_HTTP: 'true',
      SPOOR_LOG_LEVEL: logLevel,
      SPOOR_DATA_DIR: await makeTempDir(`split-${kind}`),
    },
    `http://127.0.0.1:${port}`,
  );
  into.push(p);
  await p.start();
  return p;
}

/** A Spoor process in a child (all-in-one, or the services SPOOR_SERVICES names), with its own event loop. */
export class SpoorProcess {
  private child: ChildProcess | null = null;
  constructor(
    readonly env: Record<string, string>,
    readonly url: string,
  ) {}

  async start(): Promise<void> {
    // Its stderr (the engines' clients log every refused connection during a fault) goes to a
    // file in its data dir, not into the test report.
    const log = openSync(join(this.env['SPOOR_DATA_DIR']!, 'spoor.stderr.log'), 'a');
    try {
      this.child = spawn(process.execPath, [HOST_MAIN], {
        env: { ...process.env, ...this.env },
        stdio: ['ignore', log, log],
      });
    } finally {
      closeSync(log);
    }
    await waitFor(
      () =>
        fetch(`${this.url}/healthz`).then(
          (r) => r.ok,
          () => false,
        ),
      (up) => up,
      60_000,
      'spoor to start',
    );
  }

  /** The running child's pid (undefined when stopped). */
  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** The end of its stderr (its JSON log lines), for a failure message. */
  async logTail(lines = 15): Promise<string> {
    const text = await readFile(join(this.env['SPOOR_DATA_DIR']!, 'spoor.stderr.log'), 'utf8').catch(() => '');
    return text
      .trimEnd()
      .split('\n')
      .slice(-lines)
      .map((l) => l.slice(0, 400))
      .join('\n');
  }

  /** Its /healthz body (lag per group, counters), or the error. */
  async healthz(): Promise<unknown> {
    return fetch(`${this.url}/healthz`, { signal: AbortSignal.timeout(5_000) }).then(
      (r) => r.json(),
      (err: Error) => err.message,
    );
  }

  /** How the last child stopped by kill() exited. */
  lastExit: { code: number | null; signal: NodeJS.Signals | null } | null = null;

  /** Sends `signal` and resolves once the child exited (SIGKILL after `forceMs`). */
  kill(signal: NodeJS.Signals, forceMs = 15_000): Promise<void> {
    const child = this.child;
    this.child = null;
    return new Promise((resolve) => {
      if (!child || child.exitCode !== null) return resolve();
      const force = setTimeout(() => child.kill('SIGKILL'), forceMs);
      child.once('exit', (code, sig) => {
        clearTimeout(force);
        this.lastExit = { code, signal: sig };
        resolve();
      });
      child.kill(signal);
    });
  }

  /** Waits until every consumer group of the process has processed everything published. */
  async drained(timeoutMs = 90_000): Promise<void> {
    // /healthz reports lag sampled every SPOOR_LAG_SAMPLE_MS: only a sample taken after this call counts.
    const since = Date.now();
    await waitFor(
      () =>
        fetch(`${this.url}/healthz`).then(
          (r) => r.json() as Promise<{ lag: Record<string, number>; lag_sampled_at: number }>,
          () => ({ lag: {}, lag_sampled_at: 0 }),
        ),
      (h) => h.lag_sampled_at > since && Object.keys(h.lag).length >= 2 && Object.values(h.lag).every((n) => n === 0),
      timeoutMs,
      'the pipeline to drain',
    );
  }
}

export interface Answer {
  at: number;
  status: number; // 0: no answer (connection refused, reset, or the client's own timeout)
  ms: number;
  retryAfter: string | null;
  timedOut: boolean;
}

/**
 * Browser-like clients: batches of events with client ids from `workers` loops; a batch that is
 * not answered 200 is sent again later with the same ids (as the logger does). Every answer is
 * recorded with its latency, so a test can say what was answered while the fault lasted.
 */
export class LoadClient {
  readonly acked = new Set<string>();
  readonly unacked = new Map<string, unknown[]>();
  readonly answers: Answer[] = [];
  private running = false;
  private pauseMs = 0;
  private inOrder = false;
  private loops: Array<Promise<void>> = [];

  /** `prefix` names the clients (`<prefix><n>`), their event ids and sessions (`s-<prefix><n>`). */
  constructor(
    private readonly url: string,
    private readonly clientTimeoutMs: number,
    private readonly batchSize = 5,
    private readonly prefix = 'w',
  ) {}

  /**
   * `pauseMs`: wait after each batch (0: send the next at once). `inOrder`: as the browser logger
   * does (docs/logger.md, Delivery), a refused batch is retried with back-off before the client
   * sends anything newer; otherwise it moves on and the refused batch waits for retryUnacked().
   */
  start(workers: number, pauseMs = 0, inOrder = false): void {
    this.running = true;
    this.pauseMs = pauseMs;
    this.inOrder = inOrder;
    this.loops = Array.from({ length: workers }, (_, w) => this.loop(w));
  }

  async stop(): Promise<void> {
    this.running = false;
    await Promise.all(this.loops);
  }

  /** Sends every batch not yet acknowledged again until each is answered 200. */
  async retryUnacked(timeoutMs = 60_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (this.unacked.size > 0) {
      if (Date.now() > deadline) throw new Error(`${this.unacked.size} batches still unacknowledged`);
      for (const [key, events] of [...this.unacked]) await this.send(key, events);
    }
  }

  answersBetween(from: number, to: number): Answer[] {
    return this.answers.filter((a) => a.at >= from && a.at < to);
  }

  private async loop(worker: number): Promise<void> {
    for (let i = 0; this.running; i++) {
      const key = `${this.prefix}${worker}-${i}-${randomUUID().slice(0, 8)}`;
      const events = Array.from({ length: this.batchSize }, (_, j) => ({
        project: FAULT_PROJECT,
        origin: FAULT_ORIGIN,
        action: 'click',
        timestamp: Date.now(),
        session_id: `s-${this.prefix}${worker}`,
        event_id: `${key}-${j}`,
        payload: { worker, i, j },
      }));
      let ok = await this.send(key, events);
      for (let attempt = 0; !ok && this.inOrder && this.running; attempt++) {
        await new Promise((r) => setTimeout(r, Math.min(2_000, 200 * 2 ** attempt)));
        ok = await this.send(key, events);
      }
      if (!ok || this.pauseMs > 0) await new Promise((r) => setTimeout(r, Math.max(this.pauseMs, ok ? 0 : 50)));
    }
  }

  private async send(key: string, events: unknown[]): Promise<boolean> {
    const started = Date.now();
    const answer: Answer = { at: started, status: 0, ms: 0, retryAfter: null, timedOut: false };
    try {
      const res = await fetch(`${this.url}/v1/event/batch`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ events }),
        signal: AbortSignal.timeout(this.clientTimeoutMs),
      });
      await res.text();
      answer.status = res.status;
      answer.retryAfter = res.headers.get('retry-after');
    } catch (err) {
      answer.timedOut = (err as Error).name === 'TimeoutError';
    }
    answer.ms = Date.now() - started;
    this.answers.push(answer);
    if (answer.status === 200) {
      for (const e of events as Array<{ event_id: string }>) this.acked.add(e.event_id);
      this.unacked.delete(key);
      return true;
    }
    this.unacked.set(key, events);
    return false;
  }
}

export interface SetCheck {
  acked: number;
  stored: number;
  lost: string[];
  duplicates: number;
  enriched: number;
  enrichedDuplicates: number;
  sessionEvents: number;
  sessions: number;
}

/** What a user would check in the store afterwards: each acknowledged event once, raw, enriched and in one session. */
export async function setCheck(config: Config, projectId: string, acked: Set<string>): Promise<SetCheck> {
  const adapters = await openAdapters(config, createLogger('fault-check', 'error'));
  try {
    const raw = await adapters.store.events.listRaw(projectId, { limit: 1_000_000 });
    const enriched = await adapters.store.events.listEnriched(projectId, { limit: 1_000_000 });
    const sessions = await adapters.store.sessions.list(projectId, { limit: 1000 });
    const storedIds = new Set(raw.map((e) => e.event_id));
    return {
      acked: acked.size,
      stored: storedIds.size,
      lost: [...acked].filter((id) => !storedIds.has(id)),
      duplicates: raw.length - storedIds.size,
      enriched: new Set(enriched.map((e) => e.event_id)).size,
      enrichedDuplicates: enriched.length - new Set(enriched.map((e) => e.event_id)).size,
      sessionEvents: sessions.reduce((n, s) => n + s.event_count, 0),
      sessions: sessions.length,
    };
  } finally {
    await adapters.close();
  }
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
