import { readFileSync } from 'node:fs';

/** Linux's USER_HZ: /proc/<pid>/stat counts CPU time in these ticks (100 on every common build). */
export const CLOCK_TICKS_PER_SEC = 100;

export interface ProcMemory {
  /** Peak resident set size over the process' life (VmHWM), MiB. */
  peakRssMiB: number;
  /** Resident set size now (VmRSS), MiB. */
  rssMiB: number;
}

function statusField(status: string, name: string): number {
  const match = new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status);
  return match ? Number(match[1]) / 1024 : NaN;
}

/** Reads /proc/<pid>/status; NaN where the field is missing (not Linux, process gone). */
export function readMemory(pid: number): ProcMemory {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    return { peakRssMiB: statusField(status, 'VmHWM'), rssMiB: statusField(status, 'VmRSS') };
  } catch {
    return { peakRssMiB: NaN, rssMiB: NaN };
  }
}

/**
 * A /proc stat file (a process' or a thread's): its command name and the fields after it (field 3
 * on, so utime is fields[11]); null when the process or thread is gone. The name may hold spaces
 * and parentheses; the fields after its last closing parenthesis are fixed.
 */
export function readStat(path: string): { comm: string; fields: string[] } | null {
  try {
    const stat = readFileSync(path, 'utf8');
    const close = stat.lastIndexOf(')');
    return { comm: stat.slice(stat.indexOf('(') + 1, close), fields: stat.slice(close + 2).split(' ') };
  } catch {
    return null;
  }
}

/** User plus system CPU seconds in a stat file's fields (readStat). */
export const cpuSecondsOf = (fields: string[]): number =>
  (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS_PER_SEC;

/** User plus system CPU seconds the process has used so far, from /proc/<pid>/stat. */
export function readCpuSeconds(pid: number): number {
  const stat = readStat(`/proc/${pid}/stat`);
  return stat ? cpuSecondsOf(stat.fields) : NaN;
}
