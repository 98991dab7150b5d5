// Peak resident memory per phase, of this process (where DuckDB runs, embedded) and of its child
// processes (where @spoor/testkit's chDB stand-in and redis-server run, kafka mode). VmHWM is a
// high-water mark over the process' life; writing "5" to /proc/<pid>/clear_refs resets it to the
// current RSS (proc(5), Linux 4.0+), so each phase gets a peak of its own. NaN off Linux.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename } from 'node:path';
import { readMemory } from '../ingest/proc-stats.js';

export interface PeakRss {
  /** This process: node, and DuckDB in embedded mode. */
  benchMiB: number;
  /** Child processes by name (e.g. `python3 chdb_http_server.py`), MiB. */
  children: Record<string, number>;
}

export interface ChildProcess {
  pid: number;
  name: string;
}

function parentOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Fields after the command name's closing parenthesis are fixed; the parent pid is the second.
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
}

function nameOf(pid: number): string {
  const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
  const script = argv.slice(1).find((a) => /\.(py|js|mjs)$/.test(a));
  // redis-server rewrites its argv into one string with its address; the program name is enough.
  const program = basename(argv[0] ?? String(pid)).split(' ')[0]!;
  return [program, script && basename(script)].filter(Boolean).join(' ');
}

/** This process' children (reading every /proc/<pid>/stat): list them once per store, then pass them on. */
export function childProcesses(): ChildProcess[] {
  let pids: number[];
  try {
    pids = readdirSync('/proc')
      .filter((d) => /^\d+$/.test(d))
      .map(Number);
  } catch {
    return [];
  }
  const out: ChildProcess[] = [];
  for (const pid of pids) {
    try {
      if (parentOf(pid) === process.pid) out.push({ pid, name: nameOf(pid) });
    } catch {
      /* gone meanwhile */
    }
  }
  return out;
}

function resetPeak(pid: number): void {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
  } catch {
    /* not Linux, or not ours to reset: the peak then covers the process' life so far */
  }
}

/** Starts a new phase: this process' and its children's peaks restart from their current RSS. */
export function resetPeaks(kids: ChildProcess[]): void {
  resetPeak(process.pid);
  for (const c of kids) resetPeak(c.pid);
}

/** Peaks since the last resetPeaks(). */
export function readPeaks(kids: ChildProcess[]): PeakRss {
  const children: Record<string, number> = {};
  // Two children of one name (two Python runners) are told apart by pid, not overwritten.
  for (const c of kids)
    children[c.name in children ? `${c.name} (${c.pid})` : c.name] = Math.round(readMemory(c.pid).peakRssMiB);
  return { benchMiB: Math.round(readMemory(process.pid).peakRssMiB), children };
}
