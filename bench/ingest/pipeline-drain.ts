/** The part of `GET /healthz` (libs/runtime/src/health-router.ts) the benchmark reads. */
export interface Healthz {
  lag: Record<string, number>;
  /** When the process last read the lag (its background sampler, SPOOR_LAG_SAMPLE_MS). */
  lag_sampled_at: number;
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

const drained = (h: Healthz, since: number) =>
  h.lag_sampled_at > since && Object.keys(h.lag).length > 0 && Object.values(h.lag).every((n) => n === 0);

/**
 * Polls /healthz until every consumer group has processed everything published, which is when
 * the events are stored and sessionized. `loadEndedAt` is when the load generator finished.
 */
export async function waitForDrain(url: string, loadEndedAt: number, timeoutMs: number): Promise<DrainResult> {
  const first = await readHealthz(url);
  let last = first;
  while (!drained(last, loadEndedAt)) {
    if (Date.now() - loadEndedAt > timeoutMs)
      return { drainMs: null, lagAtLoadEnd: first.lag, lagAtEnd: last.lag, counters: last.counters };
    await new Promise((r) => setTimeout(r, 20));
    last = await readHealthz(url);
  }
  // The reading's own time (same machine, same clock), not when it was fetched.
  return {
    drainMs: Math.max(0, last.lag_sampled_at - loadEndedAt),
    lagAtLoadEnd: first.lag,
    lagAtEnd: last.lag,
    counters: last.counters,
  };
}
