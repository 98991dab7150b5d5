// `node dist/bench/live/run.js` (issue 42, item 4): what open GET /v1/live streams cost the
// gateway. Each round starts the all-in-one process (embedded mode) on a fresh data directory,
// signs up, registers `--projects` loopback projects with a few events each and makes an API key,
// starts the process again on that directory, opens one stream, lets the process settle for 30 s
// and reads the baseline for `--hold-sec` (RSS, V8 heap, /healthz timed back to back), then opens
// `--streams` more from a separate process (stream-holder.ts) and reads the same while they are
// opened and held. Prints per round and the median over `--rounds` of the growth and of
// /healthz's max. The caps (SPOOR_LIVE_STREAMS_PER_ACCOUNT, SPOOR_LIVE_STREAMS_MAX) are raised
// to let them all in.
import { fork, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { USER_AGENT } from '../ingest/bench-event.js';
import { readMemory } from '../ingest/proc-stats.js';
import { freePort, ServerChild } from '../ingest/server-child.js';
import { spoorEnv } from '../ingest/spoor-deployment.js';
import { postJson } from '../shared/api-post.js';
import { parseFlags, positiveInt, UsageError } from '../shared/bench-flags.js';
import type { HolderCounts, HolderOpened, HolderStart } from './stream-holder.js';

const HOST_MAIN = fileURLToPath(new URL('../../../services/host/dist/src/main.js', import.meta.url));
const HOLDER = fileURLToPath(new URL('./stream-holder.js', import.meta.url));
const USAGE = 'usage: node dist/bench/live/run.js [--streams 2000] [--projects 1] [--hold-sec 20] [--rounds 3]';
const SETTLE_MS = 30_000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const log = (line: string) => process.stdout.write(`${line}\n`);

interface Options {
  streams: number;
  projects: number;
  holdSec: number;
  rounds: number;
}

function readOptions(argv: string[]): Options {
  const f = parseFlags(argv, ['streams', 'projects', 'hold-sec', 'rounds'], USAGE);
  return {
    streams: positiveInt('--streams', f.streams ?? '2000', USAGE),
    projects: positiveInt('--projects', f.projects ?? '1', USAGE),
    holdSec: positiveInt('--hold-sec', f['hold-sec'] ?? '20', USAGE),
    rounds: positiveInt('--rounds', f.rounds ?? '3', USAGE),
  };
}

/** /healthz timed back to back (20 ms apart) until `stop` is set: max and p99 in ms. */
class HealthProbe {
  private readonly times: number[] = [];
  private stopped = false;
  private readonly done: Promise<void>;

  constructor(url: string) {
    this.done = (async () => {
      while (!this.stopped) {
        const t0 = performance.now();
        const res = await fetch(`${url}/healthz`);
        await res.arrayBuffer();
        this.times.push(performance.now() - t0);
        await sleep(20);
      }
    })();
  }

  async stop(): Promise<{ max: number; p99: number; n: number }> {
    this.stopped = true;
    await this.done;
    const sorted = [...this.times].sort((a, b) => a - b);
    return {
      max: sorted.at(-1) ?? NaN,
      p99: sorted[Math.floor(sorted.length * 0.99)] ?? NaN,
      n: sorted.length,
    };
  }
}

/**
 * Signup, `count` loopback projects, 30 events in each so that every snapshot carries a full page
 * of them, and a read-only API key to watch them with (answered as the token).
 */
async function setUp(url: string, count: number): Promise<{ token: string; scopes: HolderStart['scopes'] }> {
  const email = `bench-live-${Date.now()}@example.com`;
  const { id_token } = await postJson<{ id_token: string }>(`${url}/v1/auth/signup`, {
    email,
    password: 'bench-live-password',
  });
  const scopes: HolderStart['scopes'] = [];
  for (let i = 0; i < count; i++) {
    const scope = { origin: `http://localhost:${5000 + i}`, project: `bench/live-${i}` };
    await postJson(`${url}/v1/users/projects`, scope, id_token);
    const now = Date.now();
    const events = Array.from({ length: 30 }, (_, n) => ({
      project: scope.project,
      action: n % 3 ? 'click' : 'pageview',
      timestamp: now - n * 1000,
      session_id: `bench-live-s${n % 12}`,
      url: `${scope.origin}/page-${n % 7}`,
    }));
    const res = await fetch(`${url}/v1/event/batch`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: scope.origin, 'user-agent': USER_AGENT },
      body: JSON.stringify({ events }),
    });
    if (res.status !== 200) throw new Error(`ingest answered ${res.status}: ${await res.text()}`);
    scopes.push(scope);
  }
  const key = await postJson<{ api_key: string }>(
    `${url}/v1/users/apikey`,
    { api_key_name: 'bench-live', scope: 'read' },
    id_token,
  );
  return { token: key.api_key, scopes };
}

/** Sends `msg` to the holder and waits for its answer of `kind`. */
function ask<T>(holder: ChildProcess, msg: unknown, kind: string): Promise<T> {
  return new Promise((resolve) => {
    const on = (m: { kind: string }) => {
      if (m.kind !== kind) return;
      holder.off('message', on);
      resolve(m as T);
    };
    holder.on('message', on);
    holder.send(msg as object);
  });
}

/** The median of `values` (NaN for none). */
function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? NaN;
}

/**
 * The server's RSS (every 250 ms) and V8 heap in use (/metrics' `nodejs_heap_size_used_bytes`,
 * every second) until stopped: their medians. One reading swings by tens of MiB with the garbage
 * collector's rhythm, which would drown the figure measured.
 */
class MemorySampler {
  private readonly rss: number[] = [];
  private readonly heap: number[] = [];
  private readonly timers: NodeJS.Timeout[];

  constructor(pid: number, url: string) {
    this.timers = [
      setInterval(() => this.rss.push(readMemory(pid).rssMiB), 250),
      setInterval(() => void this.readHeap(url), 1000),
    ];
  }

  private async readHeap(url: string): Promise<void> {
    const text = await (await fetch(`${url}/metrics`)).text();
    const used = /^nodejs_heap_size_used_bytes (\S+)$/m.exec(text);
    if (used) this.heap.push(Number(used[1]) / 2 ** 20);
  }

  stop(): { rss: number; heap: number } {
    for (const t of this.timers) clearInterval(t);
    return { rss: median(this.rss), heap: median(this.heap) };
  }
}

interface Round {
  open: number;
  refused: Record<string, number>;
  openMs: number;
  snapshotsPerStream: number;
  endedByServer: number;
  /** Medians with one stream open, with all of them, and in the 5 s after they closed. */
  before: { rss: number; heap: number };
  held: { rss: number; heap: number };
  closed: { rss: number; heap: number };
  healthOne: { max: number; p99: number; n: number };
  healthAll: { max: number; p99: number; n: number };
}

const mib = (n: number) => `${n.toFixed(1)} MiB`;
const ms = (n: number) => `${n.toFixed(1)} ms`;

/**
 * One stream is open while the baseline is read, so the project's ticker and its snapshot queries
 * (the store's memory included) are there on both sides: the difference is what the other
 * `--streams` cost.
 */
async function measure(
  child: ServerChild,
  url: string,
  o: Options,
  { token, scopes }: { token: string; scopes: HolderStart['scopes'] },
): Promise<Round> {
  const holder = fork(HOLDER, [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  try {
    const start = (streams: number): HolderStart => ({ url, token, scopes, streams, concurrency: 50 });
    await ask<HolderOpened>(holder, { kind: 'start', start: start(1) }, 'opened');
    // A process just started holds tens of MiB that V8's memory reducer gives back after ~25 s
    // of quiet: a baseline read before that would make the streams look free.
    await sleep(SETTLE_MS);
    let probe = new HealthProbe(url);
    let memory = new MemorySampler(child.pid, url);
    await sleep(o.holdSec * 1000);
    const healthOne = await probe.stop();
    const before = memory.stop();

    probe = new HealthProbe(url);
    const opened = await ask<HolderOpened>(holder, { kind: 'start', start: start(o.streams) }, 'opened');
    memory = new MemorySampler(child.pid, url);
    await sleep(o.holdSec * 1000);
    const healthAll = await probe.stop();
    const held = memory.stop();
    const counts = await ask<HolderCounts>(holder, { kind: 'counts' }, 'counts');
    await ask(holder, { kind: 'close' }, 'closed');
    memory = new MemorySampler(child.pid, url);
    await sleep(5000);
    return {
      open: opened.open,
      refused: opened.refused,
      openMs: opened.ms,
      snapshotsPerStream: counts.snapshots / Math.max(1, opened.open + 1),
      endedByServer: counts.endedByServer,
      before,
      held,
      closed: memory.stop(),
      healthOne,
      healthAll,
    };
  } finally {
    if (holder.exitCode === null) holder.kill();
  }
}

function report(r: Round, o: Options): void {
  const d = { rss: r.held.rss - r.before.rss, heap: r.held.heap - r.before.heap };
  const perStream = (m: number) => `${((m * 1024) / Math.max(1, r.open)).toFixed(1)} KiB a stream`;
  log(
    `  streams: ${r.open} of ${o.streams} opened in ${r.openMs} ms (refused ${JSON.stringify(r.refused)}); ${r.snapshotsPerStream.toFixed(1)} snapshots read a stream in ${o.holdSec} s; ${r.endedByServer} ended by the server`,
  );
  log(
    `  RSS ${mib(r.before.rss)} → ${mib(r.held.rss)}: +${mib(d.rss)} (${perStream(d.rss)}); ${mib(r.closed.rss)} after they closed`,
  );
  log(`  V8 heap in use ${mib(r.before.heap)} → ${mib(r.held.heap)}: +${mib(d.heap)} (${perStream(d.heap)})`);
  log(
    `  /healthz with one stream: max ${ms(r.healthOne.max)}, p99 ${ms(r.healthOne.p99)} (${r.healthOne.n}); while opening and holding them: max ${ms(r.healthAll.max)}, p99 ${ms(r.healthAll.p99)} (${r.healthAll.n})`,
  );
}

/** One fresh all-in-one process on a fresh data directory, measured once. */
async function runRound(o: Options): Promise<{ round: Round; errorLines: number }> {
  const dataDir = await mkdtemp(join(tmpdir(), 'spoor-bench-live-'));
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const env = {
    ...(await spoorEnv('embedded', dataDir, port))!,
    SPOOR_LIVE_STREAMS_PER_ACCOUNT: String(o.streams + 1),
    SPOOR_LIVE_STREAMS_MAX: String(o.streams + 1),
  };
  try {
    // The account is made by a first process: signup's scrypt takes tens of MiB that the
    // allocator keeps and hands back later, which would move the measured process' RSS by more
    // than the streams do. The measured one only ever sees the API key.
    const setup = new ServerChild('spoor setup', HOST_MAIN, [], env);
    let account: Awaited<ReturnType<typeof setUp>>;
    try {
      await setup.waitUntilServing(`${url}/healthz`, 120_000);
      account = await setUp(url, o.projects);
    } finally {
      await setup.stop();
    }
    const child = new ServerChild('spoor', HOST_MAIN, [], env);
    try {
      await child.waitUntilServing(`${url}/healthz`, 120_000);
      return { round: await measure(child, url, o, account), errorLines: setup.errorLines + child.errorLines };
    } finally {
      await child.stop();
    }
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
}

async function main(): Promise<number> {
  let o: Options;
  try {
    o = readOptions(process.argv.slice(2));
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    process.stderr.write(`${err.message}\n`);
    return 2;
  }
  log(
    `live benchmark: ${o.streams} streams over ${o.projects} project(s), held ${o.holdSec} s; ${o.rounds} round(s), each in a fresh embedded-mode process`,
  );
  const rounds: Round[] = [];
  let errorLines = 0;
  for (let i = 1; i <= o.rounds; i++) {
    log(`round ${i}:`);
    const { round, errorLines: errors } = await runRound(o);
    report(round, o);
    rounds.push(round);
    errorLines += errors;
  }
  const of = (f: (r: Round) => number) => median(rounds.map(f));
  log(
    `median of ${rounds.length}: RSS +${mib(of((r) => r.held.rss - r.before.rss))}, V8 heap +${mib(of((r) => r.held.heap - r.before.heap))} for ${o.streams} streams; /healthz max ${ms(of((r) => r.healthAll.max))} with them, ${ms(of((r) => r.healthOne.max))} with one`,
  );
  return errorLines > 0 ? 1 : 0;
}

process.exitCode = await main();
