import { readFileSync } from 'node:fs';

/** Linux's USER_HZ: /proc/<pid>/stat counts CPU time in these ticks (100 on every common build). */
const CLOCK_TICKS_PER_SEC = 100;

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

/** User plus system CPU seconds the process has used so far, from /proc/<pid>/stat. */
export function readCpuSeconds(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may hold spaces; fields after its closing parenthesis are fixed.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS_PER_SEC;
  } catch {
    return NaN;
  }
}
