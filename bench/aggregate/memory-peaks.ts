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

interface Child {
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

function children(): Child[] {
  let pids: number[];
  try {
    pids = readdirSync('/proc').filter((d) => /^\d+$/.test(d)).map(Number);
  } catch {
    return [];
  }
  const out: Child[] = [];
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
export function resetPeaks(): void {
  resetPeak(process.pid);
  for (const c of children()) resetPeak(c.pid);
}

/** Peaks since the last resetPeaks(). */
export function readPeaks(): PeakRss {
  const round = (mib: number) => Math.round(mib);
  const kids: Record<string, number> = {};
  for (const c of children()) kids[c.name] = round(readMemory(c.pid).peakRssMiB);
  return { benchMiB: round(readMemory(process.pid).peakRssMiB), children: kids };
}
