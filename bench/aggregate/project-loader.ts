// Step 1: a fresh project, registered and filled through the store's own write methods, chunk by
// chunk (events.insertEnriched, sessions.upsert, tags.add), then counted back. No raw events and
// no action touches: neither result job reads them. The load is timed apart and is part of no
// ratio; it says what a bulk import costs, not what the pipeline's small batches cost.
import { randomUUID } from 'node:crypto';
import type { ProjectRecord } from '@spoor/schemas';
import type { Store } from '@spoor/store';
import { emptyTally, generateDataset, type DatasetChunk, type DatasetTally } from './event-generator.js';

const DAY_MS = 86_400_000;
/** The data's 30 days end before the figures' date (2026-11-22); fixed, so every run loads the same rows. */
const START_MS = Date.UTC(2026, 9, 1);
const SPAN_MS = 30 * DAY_MS;
const SEED = 20_261_122;
const BENCH_ORIGIN = 'https://acme.example';

export interface LoadResult {
  project: ProjectRecord;
  tally: DatasetTally;
  chunks: number;
  /** Wall time, generation included. */
  loadSec: number;
  /** Time inside each write method, seconds. */
  storeSec: { insertEnriched: number; sessionsUpsert: number; tagsAdd: number };
  /** insertEnriched seconds per chunk, in load order: whether a write's cost grows with the table. */
  chunkInsertSec: number[];
  eventsPerSec: number;
  /** countEnriched and sessions.count after the load: they must equal the tally. */
  stored: { events: number; sessions: number };
}

async function registerProject(store: Store, size: number): Promise<ProjectRecord> {
  const project: ProjectRecord = {
    project_id: randomUUID(),
    origin: BENCH_ORIGIN,
    project: `bench-aggregate-${size}`,
    account_id: 'acct-bench-aggregate',
    verified: true,
    verification_token: randomUUID(),
    created_at: Date.now(),
  };
  await store.projects.create(project);
  return project;
}

type StoreSec = LoadResult['storeSec'];

async function timed(storeSec: StoreSec, key: keyof StoreSec, call: () => Promise<void>): Promise<number> {
  const t0 = performance.now();
  try {
    await call();
  } catch (err) {
    // Says which write broke: an engine error (DuckDB's out of memory) names no repository.
    throw new Error(`${key} failed: ${(err as Error).message}`, { cause: err });
  }
  const sec = (performance.now() - t0) / 1000;
  storeSec[key] += sec;
  return sec;
}

/** Answers the insertEnriched seconds. */
async function writeChunk(store: Store, c: DatasetChunk, storeSec: StoreSec): Promise<number> {
  const sec = await timed(storeSec, 'insertEnriched', () => store.events.insertEnriched(c.events));
  await timed(storeSec, 'sessionsUpsert', () => store.sessions.upsert(c.sessions));
  await timed(storeSec, 'tagsAdd', () => store.tags.add(c.tags));
  return sec;
}

export async function loadProject(
  store: Store,
  size: number,
  chunk: number,
  log: (line: string) => void,
): Promise<LoadResult> {
  const project = await registerProject(store, size);
  const tally = emptyTally();
  const spec = {
    projectId: project.project_id,
    origin: project.origin,
    project: project.project,
    events: size,
    startMs: START_MS,
    spanMs: SPAN_MS,
    chunk,
    seed: SEED,
  };
  const storeSec = { insertEnriched: 0, sessionsUpsert: 0, tagsAdd: 0 };
  const t0 = performance.now();
  const chunkInsertSec: number[] = [];
  let nextReport = size / 10;
  for (const c of generateDataset(spec, tally)) {
    const before = tally.events - c.events.length;
    chunkInsertSec.push(
      await writeChunk(store, c, storeSec).catch((err: Error) => {
        throw new Error(
          `after ${before.toLocaleString('en')} events loaded in ${((performance.now() - t0) / 1000).toFixed(0)} s, ${err.message}`,
          { cause: err },
        );
      }),
    );
    if (tally.events >= nextReport) {
      const sec = (performance.now() - t0) / 1000;
      const last = chunkInsertSec[chunkInsertSec.length - 1]!;
      log(
        `  loaded ${tally.events.toLocaleString('en')} events in ${sec.toFixed(0)} s (${Math.round(tally.events / sec).toLocaleString('en')}/s; last insertEnriched ${last.toFixed(1)} s)`,
      );
      nextReport += size / 10;
    }
  }
  const loadSec = (performance.now() - t0) / 1000;
  const stored = {
    events: await store.events.countEnriched(project.project_id),
    sessions: await store.sessions.count(project.project_id),
  };
  if (stored.events !== tally.events || stored.sessions !== tally.sessions) {
    throw new Error(
      `loaded ${tally.events} events in ${tally.sessions} sessions, the store counts ${stored.events} and ${stored.sessions}`,
    );
  }
  return {
    project,
    tally,
    chunks: chunkInsertSec.length,
    loadSec,
    storeSec,
    chunkInsertSec,
    eventsPerSec: tally.events / loadSec,
    stored,
  };
}
