// What a job costs everyone else: while one more run of a handler goes on (outside the timed
// rounds), a small read the gateway makes on every authenticated request (projects.get) is
// issued every 50 ms and timed. DuckDbStore serves reads on a pool of reader connections and
// analytics jobs on one of their own (libs/store/src/duckdb/duckdb-store.ts); the chDB stand-in
// runs up to four queries at once (a pool of sessions, deploy/local/chdb/chdb_engine.py), as a
// real ClickHouse serves concurrent queries.
import { setTimeout as sleep } from 'node:timers/promises';
import type { Store } from '@spoor/store';

const EVERY_MS = 50;

export interface ReadStall {
  /** The handler's time with the reads going on. */
  jobSec: number;
  reads: number;
  p50Ms: number;
  maxMs: number;
}

export async function readsDuring(store: Store, projectId: string, job: () => Promise<unknown>): Promise<ReadStall> {
  const latencies: number[] = [];
  let done = false;
  const sampler = (async () => {
    while (!done) {
      const t0 = performance.now();
      await store.projects.get(projectId);
      latencies.push(performance.now() - t0);
      await sleep(EVERY_MS);
    }
  })();
  const t0 = performance.now();
  try {
    await job();
  } finally {
    done = true;
    await sampler;
  }
  const sorted = [...latencies].sort((a, b) => a - b);
  const round1 = (x: number) => Math.round(x * 10) / 10;
  return {
    jobSec: (performance.now() - t0) / 1000,
    reads: sorted.length,
    p50Ms: round1(sorted[Math.floor(sorted.length / 2)] ?? NaN),
    maxMs: round1(sorted[sorted.length - 1] ?? NaN),
  };
}
