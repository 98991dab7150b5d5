// Writes the dataset straight through the store's repositories, with the batch sizes the
// pipeline's consumers use, while no Spoor process runs (DuckDB admits one process per file).
// Going through HTTP would measure ingest, which bench/ingest already does.
import { loadConfig } from '@spoor/config';
import { createLogger } from '@spoor/service-log';
import { openAdapters } from '@spoor/runtime';
import type { Store } from '@spoor/store';
import { emptyFacts, generateDataset, type DatasetBatch, type DatasetFacts } from './dataset-generator.js';

export const BATCH_EVENTS = 5_000;
const SEED = 20_261_122;

export interface LoadStats {
  events: number;
  sessions: number;
  tags: number;
  /** Every row written: raw + enriched events, session states, tags, action touches. */
  rows: number;
  batches: number;
  /** From opening the store to closing it, generation included. */
  wallMs: number;
  /** Time spent inside repository calls only. */
  storeMs: number;
  /** events / wall time (each event written twice, raw and enriched). */
  eventsPerSec: number;
  rowsPerSec: number;
  avgPayloadBytes: number;
}

export interface LoadedDataset {
  projectId: string;
  facts: DatasetFacts;
  stats: LoadStats;
}

async function writeBatch(store: Store, b: DatasetBatch): Promise<void> {
  await store.events.insertRaw(b.raw);
  await store.events.insertEnriched(b.enriched);
  await store.sessions.upsert(b.sessions);
  await store.events.touchActions(b.actions);
  await store.tags.add(b.tags);
}

function progress(label: string, done: number, total: number, startedAt: number): void {
  const s = (Date.now() - startedAt) / 1000;
  process.stdout.write(
    `  ${label}: ${done.toLocaleString('en')} / ${total.toLocaleString('en')} events in ${s.toFixed(0)} s (${(done / s).toFixed(0)} events/s)\n`,
  );
}

/**
 * Loads `events` events in `sessions` sessions into the project registered as (origin, project),
 * the newest just before `endMs`. Returns what the checks and the load need to know.
 */
export async function loadDataset(
  env: Record<string, string>,
  label: string,
  scope: { origin: string; project: string },
  sizes: { events: number; sessions: number },
  endMs: number,
): Promise<LoadedDataset> {
  const startedAt = Date.now();
  const adapters = await openAdapters(loadConfig(env), createLogger('bench-read', 'error'));
  try {
    const { store } = adapters;
    const record = await store.projects.find(scope.origin, scope.project);
    if (!record)
      throw new Error(`${label}: project ${scope.project} at ${scope.origin} is not in the store after registration`);
    const facts = emptyFacts();
    const spec = { projectId: record.project_id, ...scope, ...sizes, endMs, batchEvents: BATCH_EVENTS, seed: SEED };
    let rows = 0;
    let tags = 0;
    let batches = 0;
    let storeMs = 0;
    let nextReport = sizes.events / 10;
    for (const batch of generateDataset(spec, facts)) {
      const t0 = performance.now();
      await writeBatch(store, batch);
      storeMs += performance.now() - t0;
      rows +=
        batch.raw.length + batch.enriched.length + batch.sessions.length + batch.tags.length + batch.actions.length;
      tags += batch.tags.length;
      batches++;
      if (facts.events >= nextReport) {
        progress(label, facts.events, sizes.events, startedAt);
        nextReport += sizes.events / 10;
      }
    }
    await adapters.close();
    const wallMs = Date.now() - startedAt;
    const stats: LoadStats = {
      events: facts.events,
      sessions: facts.sessions,
      tags,
      rows,
      batches,
      wallMs,
      storeMs: Math.round(storeMs),
      eventsPerSec: facts.events / (wallMs / 1000),
      rowsPerSec: rows / (wallMs / 1000),
      avgPayloadBytes: facts.payloadBytes / facts.events,
    };
    return { projectId: record.project_id, facts, stats };
  } catch (err) {
    await adapters.close().catch(() => undefined);
    throw err;
  }
}
