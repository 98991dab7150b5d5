// The engines' own processes in Kafka mode. @spoor/testkit's local runners start them as
// children of this process (libs/testkit/src/runners: the broker on the JDK, chDB's HTTP server
// in Python, redis-server; setpriv execs each in place, so the child's pid is the engine's) and
// hand out only their addresses, so they are found here by walking this process' descendants in
// /proc and matching command lines. An engine named by SPOOR_* or run in a container is not a
// descendant: its figures are absent, and the report says why.
import { readdirSync, readFileSync } from 'node:fs';
import { readStat } from '../ingest/proc-stats.js';

export type EngineName = 'kafka' | 'clickhouse' | 'redis';
export const ENGINE_NAMES: readonly EngineName[] = ['kafka', 'clickhouse', 'redis'];

const COMMAND_LINES: Record<EngineName, RegExp> = {
  kafka: /\bkafka\.Kafka\b/,
  clickhouse: /chdb_http_server\.py/,
  redis: /redis-server/,
};

function parentOf(pid: number): number | null {
  const stat = readStat(`/proc/${pid}/stat`);
  return stat ? Number(stat.fields[1]) : null;
}

function commandLine(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
  } catch {
    return '';
  }
}

/** Every process under `root` (children, their children, …). */
function descendants(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const parent = parentOf(Number(entry));
    if (parent !== null) children.set(parent, [...(children.get(parent) ?? []), Number(entry)]);
  }
  const found: number[] = [];
  const queue = [root];
  while (queue.length > 0) {
    for (const child of children.get(queue.shift()!) ?? []) {
      found.push(child);
      queue.push(child);
    }
  }
  return found;
}

/** The pid of each engine this process started, or null when none of its descendants is that engine. */
export function findEnginePids(root = process.pid): Record<EngineName, number | null> {
  const pids = descendants(root);
  const out = { kafka: null, clickhouse: null, redis: null } as Record<EngineName, number | null>;
  for (const name of ENGINE_NAMES) out[name] = pids.find((pid) => COMMAND_LINES[name].test(commandLine(pid))) ?? null;
  return out;
}
