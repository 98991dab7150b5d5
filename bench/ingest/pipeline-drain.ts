/** The part of `GET /healthz` (libs/runtime/src/health-router.ts) the benchmark reads. */
export interface Healthz {
  lag: Record<string, number>;
  counters: Record<string, number>;
}

export interface DrainResult {
  /** From the end of the load until every consumer group had lag 0; null if it never did. */
  drainMs: number | null;
  /** Lag per topic/group at the end of the load, and at the end of the wait. */
  lagAtLoadEnd: Record<string, number>;
  lagAtEnd: Record<string, number>;
  counters: Record<string, number>;
}

export async function readHealthz(url: string): Promise<Healthz> {
  const res = await fetch(`${url}/healthz`);
  if (!res.ok) throw new Error(`GET /healthz answered ${res.status}`);
  return (await res.json()) as Healthz;
}

const drained = (h: Healthz) => Object.keys(h.lag).length > 0 && Object.values(h.lag).every((n) => n === 0);

/**
 * Polls /healthz until every consumer group has processed everything published, which is when
 * the events are stored and sessionized. `loadEndedAt` is when the load generator finished.
 */
export async function waitForDrain(url: string, loadEndedAt: number, timeoutMs: number): Promise<DrainResult> {
  const first = await readHealthz(url);
  let last = first;
  while (!drained(last)) {
    if (Date.now() - loadEndedAt > timeoutMs) return { drainMs: null, lagAtLoadEnd: first.lag, lagAtEnd: last.lag, counters: last.counters };
    await new Promise((r) => setTimeout(r, 100));
    last = await readHealthz(url);
  }
  return { drainMs: Date.now() - loadEndedAt, lagAtLoadEnd: first.lag, lagAtEnd: last.lag, counters: last.counters };
}
