import { readFileSync } from 'node:fs';
import { availableParallelism, cpus, loadavg, totalmem } from 'node:os';

export interface MachineInfo {
  cpus: number;
  cpuModel: string;
  ramGiB: number;
  node: string;
  /** 1-minute load average when the run started: anything else busy skews the figures. */
  loadAverage1m: number;
}

function cpuModel(): string {
  try {
    const match = /^model name\s*:\s*(.+)$/m.exec(readFileSync('/proc/cpuinfo', 'utf8'));
    if (match) return match[1]!.trim();
  } catch {
    /* not Linux */
  }
  return cpus()[0]?.model ?? 'unknown';
}

export function machineInfo(): MachineInfo {
  return {
    cpus: availableParallelism(),
    cpuModel: cpuModel(),
    ramGiB: Math.round((totalmem() / 2 ** 30) * 10) / 10,
    node: process.version,
    loadAverage1m: loadavg()[0] ?? 0,
  };
}

export function describeMachine(m: MachineInfo): string {
  return `${m.cpus} CPUs (${m.cpuModel}), ${m.ramGiB} GiB RAM, Node ${m.node}, load average ${m.loadAverage1m.toFixed(2)}`;
}
