// CPU per thread of a Node process, from /proc/<pid>/task/<tid>/stat, grouped by what each
// thread is. Node 20 names none of its threads: every comm is the executable's ("node"), so
// the groups come from how Node starts them (src/node_platform.cc, libuv's threadpool.c):
//
//   main            the thread whose tid is the pid: the event loop (Spoor's HTTP thread)
//   V8 platform     the first 1 + --v8-pool-size (default 4) threads: the delayed-task
//                   scheduler and V8's workers (concurrent GC, compilation); Node starts them
//                   before any JavaScript runs
//   worker threads  every later thread that idles in epoll_wait: a worker_threads Worker's own
//                   event loop (Spoor's pipeline thread, libs/runtime/src/pipeline-thread.ts)
//   libuv pool      the largest set of threads idling on one futex (one condition variable):
//                   UV_THREADPOOL_SIZE (4) threads running fs calls, crypto (scrypt), zlib and
//                   N-API async work, which is where @duckdb/node-api runs DuckDB's queries
//   other           anything else alive at the idle look (the inspector's SIGUSR1 thread, a
//                   DuckDB worker thread while a scan widened the engine)
//   started later   threads first seen after the idle look (DuckDB widening for a scan)
//   exited          CPU the process used in threads that ended within the window: the process'
//                   own figure minus its live threads' (shown when a thread ended, or when the
//                   difference exceeds what rounding each thread's figure to a tick explains)
//
// A thread whose comm is not the main thread's (one that named itself through
// /proc/thread-self/comm, as Spoor's pipeline thread may; a newer Node; a native library that
// names its threads) is grouped by that name instead. Classification looks at each thread's
// wait state (/proc/.../wchan, /proc/.../syscall), readable by the parent of the process or
// root, while the process idles; what it decided is kept per tid in the report to be checked.
import { readdirSync, readFileSync } from 'node:fs';
import { CLOCK_TICKS_PER_SEC, cpuSecondsOf, readStat } from '../ingest/proc-stats.js';

const DEFAULT_V8_POOL_SIZE = 4;

export interface ThreadStat {
  tid: number;
  comm: string;
  /** User plus system CPU seconds. */
  cpuSec: number;
  /** When the thread started, in clock ticks after boot: its order of creation. */
  startTicks: number;
}

export interface ThreadVerdict {
  tid: number;
  comm: string;
  group: string;
  /** What the idle look saw: `epoll`, `futex@<address>`, another wchan, or `running`. */
  waitedIn: string;
}

function readThreadStat(path: string): { comm: string; cpuSec: number; startTicks: number } | null {
  const stat = readStat(path);
  // starttime is field 22 (fields[19]): the threads' order of creation.
  return stat && { comm: stat.comm, cpuSec: cpuSecondsOf(stat.fields), startTicks: Number(stat.fields[19]) };
}

/** Every live thread of `pid`; empty when the process is gone. */
export function readThreads(pid: number): ThreadStat[] {
  let tids: string[];
  try {
    tids = readdirSync(`/proc/${pid}/task`);
  } catch {
    return [];
  }
  const threads: ThreadStat[] = [];
  for (const tid of tids) {
    const stat = readThreadStat(`/proc/${pid}/task/${tid}/stat`);
    if (stat) threads.push({ tid: Number(tid), ...stat });
  }
  return threads;
}

/** Where a blocked thread waits: `epoll`, `futex@<address>` (its first argument), or the wchan. */
function waitState(pid: number, tid: number): string {
  const read = (file: string) => {
    try {
      return readFileSync(`/proc/${pid}/task/${tid}/${file}`, 'utf8').trim();
    } catch {
      return '';
    }
  };
  const wchan = read('wchan');
  if (wchan.includes('epoll')) return 'epoll';
  if (wchan.includes('futex')) {
    const [, address] = read('syscall').split(' ');
    return address ? `futex@${address}` : 'futex';
  }
  return wchan === '' || wchan === '0' ? 'running' : wchan;
}

/** The most frequent of a thread's looks, a blocked state over `running`. */
function settledState(states: string[]): string {
  const counts = new Map<string, number>();
  for (const s of states) counts.set(s, (counts.get(s) ?? 0) + (s === 'running' ? 0.5 : 1));
  return [...counts].sort((a, b) => b[1] - a[1])[0]?.[0] ?? 'running';
}

/** --v8-pool-size as the server's node is started with it (BENCH_NODE_ARGS, see ServerChild). */
function v8PoolSize(): number {
  const match = /--v8-pool-size[= ](\d+)/.exec(process.env['BENCH_NODE_ARGS'] ?? '');
  return match ? Number(match[1]) : DEFAULT_V8_POOL_SIZE;
}

/** Futex waiters whose addresses lie within 64 bytes wait on one object: one pool. */
function largestFutexPool(states: Map<number, string>): Set<number> {
  const waiters = [...states]
    .filter(([, s]) => s.startsWith('futex@'))
    .map(([tid, s]) => ({ tid, address: BigInt(s.slice('futex@'.length)) }))
    .sort((a, b) => (a.address < b.address ? -1 : a.address > b.address ? 1 : 0));
  const pools: number[][] = [];
  let last: bigint | null = null;
  for (const w of waiters) {
    if (last === null || w.address - last > 64n) pools.push([]);
    pools[pools.length - 1]!.push(w.tid);
    last = w.address;
  }
  const largest = pools.sort((a, b) => b.length - a.length)[0] ?? [];
  return new Set(largest.length > 1 ? largest : []);
}

/** The groups of one process' threads, decided once while it idles (see the top of the file). */
export class ThreadGroups {
  private readonly verdicts = new Map<number, ThreadVerdict>();

  constructor(private readonly pid: number) {}

  /** Looks at every live thread `looks` times, `gapMs` apart, and names its group. */
  async classifyIdle(looks = 5, gapMs = 20): Promise<void> {
    const seen = new Map<number, string[]>();
    let threads: ThreadStat[] = [];
    for (let i = 0; i < looks; i++) {
      threads = readThreads(this.pid);
      for (const t of threads) seen.set(t.tid, [...(seen.get(t.tid) ?? []), waitState(this.pid, t.tid)]);
      await new Promise((r) => setTimeout(r, gapMs));
    }
    const states = new Map([...seen].map(([tid, s]) => [tid, settledState(s)]));
    const mainComm = threads.find((t) => t.tid === this.pid)?.comm ?? 'node';
    const unnamed = threads
      .filter((t) => t.tid !== this.pid && t.comm === mainComm)
      .sort((a, b) => a.startTicks - b.startTicks || a.tid - b.tid);
    const platform = new Set(unnamed.slice(0, 1 + v8PoolSize()).map((t) => t.tid));
    const rest = new Map([...states].filter(([tid]) => unnamed.some((t) => t.tid === tid) && !platform.has(tid)));
    const libuv = largestFutexPool(rest);
    for (const t of threads) {
      const waitedIn = states.get(t.tid) ?? 'running';
      let group: string;
      if (t.tid === this.pid) group = 'main';
      else if (t.comm !== mainComm) group = t.comm;
      else if (platform.has(t.tid)) group = 'V8 platform';
      else if (waitedIn === 'epoll') group = 'worker threads';
      else if (libuv.has(t.tid)) group = 'libuv pool';
      else group = 'other';
      this.verdicts.set(t.tid, { tid: t.tid, comm: t.comm, group, waitedIn });
    }
  }

  groupOf(tid: number): string {
    return this.verdicts.get(tid)?.group ?? 'started later';
  }

  list(): ThreadVerdict[] {
    return [...this.verdicts.values()];
  }
}

export interface GroupCpu {
  cpuSec: number;
  /** Threads of the group alive at the window's end (or start, for threads that ended). */
  threads: number;
}

/**
 * CPU seconds per group between two looks at the threads, and `exited`: what the process used
 * (`processCpuSec`, from /proc/<pid>/stat) beyond the threads alive at the end.
 */
export function cpuByGroup(
  groups: ThreadGroups,
  start: ThreadStat[],
  end: ThreadStat[],
  processCpuSec: number,
): Record<string, GroupCpu> {
  const before = new Map(start.map((t) => [t.tid, t.cpuSec]));
  const out: Record<string, GroupCpu> = {};
  let counted = 0;
  for (const t of end) {
    const used = t.cpuSec - (before.get(t.tid) ?? 0);
    const g = (out[groups.groupOf(t.tid)] ??= { cpuSec: 0, threads: 0 });
    g.cpuSec += used;
    g.threads++;
    counted += used;
  }
  // Threads that started and ended within the window are in neither look, only in the process'
  // figure; each thread's ticks are also rounded down, so a few ticks of difference are rounding.
  const ended = start.filter((t) => !end.some((e) => e.tid === t.tid)).length;
  const exited = processCpuSec - counted;
  if (ended > 0 || exited >= 5 / CLOCK_TICKS_PER_SEC) out['exited'] = { cpuSec: exited, threads: ended };
  return out;
}
