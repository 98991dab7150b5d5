// What the Spoor process says about itself at the window's edges: events ingest accepted
// (GET /healthz counters) and inserts that reached the store (GET /metrics).
import { readHealthz } from '../ingest/pipeline-drain.js';

/** Events ingest has accepted since the process started. */
export async function readAccepted(url: string): Promise<number> {
  return (await readHealthz(url)).counters['accepted'] ?? 0;
}

const INSERTS = /^spoor_store_inserts_total(?:\{([^}]*)\})?\s+(\S+)/;

/**
 * `spoor_store_inserts_total` by its `table` label (`all` when it has none), summed over
 * anything else it is labelled with; null when /metrics has no such counter.
 */
export async function readStoreInserts(url: string): Promise<Record<string, number> | null> {
  const res = await fetch(`${url}/metrics`);
  if (!res.ok) throw new Error(`GET /metrics answered ${res.status}`);
  const byTable: Record<string, number> = {};
  let found = false;
  for (const line of (await res.text()).split('\n')) {
    const match = INSERTS.exec(line);
    if (!match) continue;
    found = true;
    const table = /(?:^|,)table="([^"]*)"/.exec(match[1] ?? '')?.[1] ?? 'all';
    byTable[table] = (byTable[table] ?? 0) + Number(match[2]);
  }
  return found ? byTable : null;
}
