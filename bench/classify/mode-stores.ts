// The adapters each mode runs on, as the host wires them (libs/runtime/src/adapters.ts):
// embedded = DuckDB on a file (memory capped at the SPOOR_DUCKDB_MEMORY default) and the memory
// KV; kafka = ClickHouse and Redis from @spoor/testkit (an SPOOR_* URL, a container, or the
// local runners: chDB behind ClickHouse's HTTP API, redis-server). No bus: the classifier's
// and the worker's figures here are their store and KV round trips and their evaluation.
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { MemoryKv, RedisKv, type Kv } from '@spoor/kv';
import { openStore, type Store } from '@spoor/store';
import { clickhouseUrl, makeTempDir, redisUrl } from '@spoor/testkit';
import type { ClassifyMode } from './classify-options.js';

export interface ModeAdapters {
  store: Store;
  kv: Kv;
  /** What the store and KV are, for the report. */
  describe: string;
}

async function openEmbedded(): Promise<ModeAdapters> {
  const path = join(await makeTempDir('bench-classify'), 'spoor.duckdb');
  const store = await openStore({ kind: 'duckdb', path, memoryLimit: '1GB' });
  await store.migrate();
  return { store, kv: new MemoryKv(), describe: 'DuckDB (file, 1GB memory limit), memory KV' };
}

async function openKafka(): Promise<ModeAdapters> {
  const [ch, redis] = await Promise.all([clickhouseUrl(), redisUrl()]);
  if (!ch || !redis) throw new Error(`engines missing: ${[!ch && 'clickhouse', !redis && 'redis'].filter(Boolean).join(', ')} could not start`);
  // A fresh database per run; the testkit's stand-in goes away with its temp dir, a ClickHouse
  // named by SPOOR_CLICKHOUSE_URL keeps it (the Store has no drop).
  const database = `bench_classify_${randomUUID().replace(/-/g, '').slice(0, 12)}`;
  const store = await openStore({ kind: 'clickhouse', url: ch, database });
  await store.migrate();
  const kv = await RedisKv.connect(redis, `bench-classify.${Date.now()}.`);
  return { store, kv, describe: `ClickHouse at ${ch} (database ${database}), Redis at ${redis}` };
}

/** Opened and migrated; throws when an engine of the mode is missing. */
export function openMode(mode: ClassifyMode): Promise<ModeAdapters> {
  return mode === 'embedded' ? openEmbedded() : openKafka();
}

export async function closeMode(a: ModeAdapters): Promise<void> {
  await a.kv.close();
  await a.store.close();
}
