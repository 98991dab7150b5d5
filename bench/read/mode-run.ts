// One deployment from empty to measured: start the all-in-one process, sign up and register the
// project through its API, stop it, bulk-load the dataset into its store, start it again, check
// one answer of every endpoint, then load each endpoint from a separate process in turn.
import { randomUUID } from 'node:crypto';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readCpuSeconds, readMemory } from '../ingest/proc-stats.js';
import { freePort, ServerChild } from '../ingest/server-child.js';
import { spoorEnv } from '../ingest/spoor-deployment.js';
import { loadDataset, type LoadedDataset, type LoadStats } from './dataset-loader.js';
import { createAccountAndProject, login, type BenchAccount } from './gateway-account.js';
import { besideJobs, type JobRuns } from './job-driver.js';
import { checkEndpoint, readEndpoints, type ReadEndpoint } from './read-endpoints.js';
import type { ReadBenchOptions, ReadMode } from './read-options.js';
import { runReadLoad, type ReadLoadResult } from './read-load-runner.js';

const HOST_MAIN = fileURLToPath(new URL('../../../services/host/dist/src/main.js', import.meta.url));
const START_TIMEOUT_MS = 120_000;

export interface EndpointResult {
  name: string;
  route: string;
  /** How many distinct paths the connections cycled over. */
  distinctPaths: number;
  /** The single checked request before the load (cold caches). */
  firstRequestMs: number;
  load: ReadLoadResult;
  /** The server process: CPU seconds during this load, memory right after it. */
  server: { cpuSec: number; rssMiB: number; peakRssMiB: number };
  /** Set on the second load of an endpoint, measured while transitions jobs ran (issue 15, target 5). */
  besideJobs?: JobRuns;
}

/** The endpoints loaded a second time beside running transitions jobs: a cheap read and a point read. */
const BESIDE_JOBS = ['actions', 'session-events'];

export interface ModeResult {
  mode: ReadMode;
  /** Why the mode did not run (an engine missing); every other field is then absent. */
  skipped?: string;
  dataset?: LoadStats;
  /** From spawning the loaded server until /healthz answered. */
  startMs?: number;
  endpoints?: EndpointResult[];
  server?: { peakRssMiB: number; errorLogLines: number; firstErrors: string[] };
}

/**
 * /healthz answers 200 only once every service started, its routes mounted and its consumers
 * joined their groups (readiness, docs/health.md); the SIGTERM handler is installed by then too.
 */
async function waitUntilStarted(child: ServerChild, url: string): Promise<void> {
  await child.waitUntilServing(`${url}/healthz`, START_TIMEOUT_MS);
}

async function startServer(
  label: string,
  env: Record<string, string>,
  url: string,
): Promise<{ child: ServerChild; startMs: number }> {
  const t0 = Date.now();
  const child = new ServerChild(label, HOST_MAIN, [], env);
  try {
    await waitUntilStarted(child, url);
  } catch (err) {
    await child.stop();
    throw err;
  }
  return { child, startMs: Date.now() - t0 };
}

async function stopServer(child: ServerChild): Promise<void> {
  const code = await child.stop();
  if (code !== 0) process.stderr.write(`${child.label}: the Spoor process exited with ${code} on SIGTERM\n`);
}

async function measureEndpoint(
  child: ServerChild,
  url: string,
  token: string,
  ep: ReadEndpoint,
  options: ReadBenchOptions,
): Promise<EndpointResult> {
  const firstRequestMs = await checkEndpoint(url, token, ep);
  const cpu0 = readCpuSeconds(child.pid);
  const load = await runReadLoad({
    url,
    token,
    paths: ep.paths,
    connections: options.connections,
    durationSec: options.durationSec,
  });
  const memory = readMemory(child.pid);
  const result = {
    name: ep.name,
    route: ep.route,
    distinctPaths: ep.paths.length,
    firstRequestMs,
    load,
    server: { cpuSec: readCpuSeconds(child.pid) - cpu0, rssMiB: memory.rssMiB, peakRssMiB: memory.peakRssMiB },
  };
  const e = load.exact;
  process.stdout.write(
    `  ${ep.name}: ${load.autocannon.requests.mean.toFixed(0)} req/s, p50 ${e.p50.toFixed(2)} ms, p99 ${e.p99.toFixed(2)} ms, ${JSON.stringify(load.autocannon.statusCodeStats)}, first request ${firstRequestMs.toFixed(0)} ms\n`,
  );
  return result;
}

/** What a kept data directory remembers of the dataset loaded into it (--data-dir). */
interface KeptDataset {
  events: number;
  sessions: number;
  account: BenchAccount;
  dataset: LoadedDataset;
  endMs: number;
}

const KEPT_FILE = 'bench-read-dataset.json';

async function keptDataset(dataDir: string, options: ReadBenchOptions): Promise<KeptDataset | null> {
  try {
    const kept = JSON.parse(await readFile(join(dataDir, KEPT_FILE), 'utf8')) as KeptDataset;
    return kept.events === options.events && kept.sessions === options.sessions ? kept : null;
  } catch {
    return null;
  }
}

/** Signs up, registers the project, then loads the dataset through the store with no server running. */
async function setUpDataset(
  mode: ReadMode,
  env: Record<string, string>,
  url: string,
  options: ReadBenchOptions,
): Promise<Omit<KeptDataset, 'events' | 'sessions'>> {
  const setup = await startServer(`${mode}-setup`, env, url);
  let account;
  try {
    account = await createAccountAndProject(url, randomUUID().slice(0, 8));
  } finally {
    await stopServer(setup.child);
  }
  const endMs = Date.now();
  process.stdout.write(
    `  loading ${options.events.toLocaleString('en')} events in ${options.sessions.toLocaleString('en')} sessions through the store\n`,
  );
  const dataset = await loadDataset(env, mode, account, options, endMs);
  const s = dataset.stats;
  process.stdout.write(
    `  loaded in ${(s.wallMs / 1000).toFixed(1)} s: ${s.eventsPerSec.toFixed(0)} events/s, ${s.rowsPerSec.toFixed(0)} rows/s (${s.rows.toLocaleString('en')} rows), store calls ${(s.storeMs / 1000).toFixed(1)} s\n`,
  );
  return { account, dataset, endMs };
}

/**
 * Embedded or Kafka mode, end to end. The temp data dir (and its DuckDB file) is removed after,
 * unless --data-dir named one: that one is kept, and a dataset of the same size already in it is
 * used as it is (the load takes ~100 s at 1 M events).
 */
export async function runMode(mode: ReadMode, options: ReadBenchOptions): Promise<ModeResult> {
  const keep = options.dataDir;
  const dataDir = keep ?? (await mkdtemp(join(tmpdir(), `spoor-bench-read-${mode}-`)));
  try {
    const port = await freePort();
    const env = await spoorEnv(mode, dataDir, port);
    if (!env) return { mode, skipped: 'Kafka, ClickHouse or Redis could not be started by @spoor/testkit' };
    const url = `http://127.0.0.1:${port}`;

    let kept = keep ? await keptDataset(keep, options) : null;
    if (kept) process.stdout.write(`  reusing the dataset loaded into ${keep}\n`);
    else {
      if (keep) await prepareEmptyDir(keep);
      kept = { events: options.events, sessions: options.sessions, ...(await setUpDataset(mode, env, url, options)) };
      if (keep) await writeFile(join(keep, KEPT_FILE), JSON.stringify(kept));
    }
    const { account, dataset, endMs } = kept;

    const { child, startMs } = await startServer(mode, env, url);
    try {
      const token = await login(url, account.email);
      const endpoints: EndpointResult[] = [];
      const all = readEndpoints({ ...account, facts: dataset.facts, endMs });
      for (const ep of all) endpoints.push(await measureEndpoint(child, url, token, ep, options));
      for (const ep of all.filter((e) => BESIDE_JOBS.includes(e.name))) {
        process.stdout.write(`  ${ep.name} again, beside transitions jobs over the 30 days run one after another:\n`);
        const beside = { ...ep, name: `${ep.name}+jobs`, route: `${ep.route} beside a transitions job` };
        const { result, jobs } = await besideJobs(url, token, account, endMs, () =>
          measureEndpoint(child, url, token, beside, options),
        );
        process.stdout.write(
          `    ${jobs.ended} jobs ended during the load (${jobs.failed} failed), median ${jobs.medianMs?.toFixed(0) ?? '-'} ms each\n`,
        );
        endpoints.push({ ...result, besideJobs: jobs });
      }
      const server = {
        peakRssMiB: readMemory(child.pid).peakRssMiB,
        errorLogLines: child.errorLines,
        firstErrors: child.firstErrors,
      };
      return { mode, dataset: dataset.stats, startMs, endpoints, server };
    } finally {
      await stopServer(child);
    }
  } finally {
    if (!keep) await rm(dataDir, { recursive: true, force: true });
  }
}

/**
 * A kept directory without a dataset of the asked size starts empty: one this benchmark filled
 * (another size, a failed load) is cleared; any other non-empty directory is refused, not removed.
 */
async function prepareEmptyDir(dir: string): Promise<void> {
  const entries = await readdir(dir).catch(() => [] as string[]);
  if (entries.length > 0 && !entries.includes(KEPT_FILE) && !entries.includes('spoor.duckdb'))
    throw new Error(
      `--data-dir ${dir} is not empty and holds no dataset of this benchmark; name an empty or new directory`,
    );
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir, { recursive: true });
}
