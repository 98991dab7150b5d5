// The adapters each mode runs the worker's result jobs on, as the host wires them
// (libs/runtime/src/adapters.ts): embedded = DuckDB on a file with the SPOOR_DUCKDB_MEMORY
// default (1GB, or --duckdb-memory) and the memory KV; kafka = ClickHouse and Redis from @spoor/testkit (an SPOOR_*
// URL, a container, or the local runners: chDB behind ClickHouse's HTTP API, redis-server).
// Every project size gets a store of its own, so the 10M figures never scan the 1M rows and
// the loads' duplicate checks start from an empty table.
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { MemoryKv, RedisKv, type Kv } from '@spoor/kv';
import { openStore, type Store } from '@spoor/store';
import { clickhouseUrl, makeTempDir, redisUrl } from '@spoor/testkit';
import type { AggregateMode } from './aggregate-options.js';

export interface ModeAdapters {
  store: Store;
  /** The webhook outbox's KV; a project without webhooks never touches it. */
  kv: Kv;
  /** What the store and KV are, for the report. */
  describe: string;
}

async function openEmbedded(label: string, memoryLimit: string): Promise<ModeAdapters> {
  const path = join(await makeTempDir(`bench-aggregate-${label}`), 'spoor.duckdb');
  const store = await openStore({ kind: 'duckdb', path, memoryLimit });
  await store.migrate();
  return { store, kv: new MemoryKv(), describe: `DuckDB (file ${path}, ${memoryLimit} memory limit), memory KV` };
}

async function openKafka(label: string): Promise<ModeAdapters> {
  const [ch, redis] = await Promise.all([clickhouseUrl(), redisUrl()]);
  if (!ch || !redis) throw new Error(`engines missing: ${[!ch && 'clickhouse', !redis && 'redis'].filter(Boolean).join(', ')} could not start`);
  // A fresh database per size; the testkit's stand-in goes away with its temp dir, a ClickHouse
  // named by SPOOR_CLICKHOUSE_URL keeps it (the Store has no drop).
  const database = `bench_aggregate_${label}_${randomUUID().replace(/-/g, '').slice(0, 8)}`;
  const store = await openStore({ kind: 'clickhouse', url: ch, database });
  await store.migrate();
  const kv = await RedisKv.connect(redis, `bench-aggregate.${Date.now()}.`);
  return { store, kv, describe: `ClickHouse at ${ch} (database ${database}), Redis at ${redis}` };
}

/** Opened and migrated; `label` (the size) names the file or database. Throws when an engine is missing. */
export function openMode(mode: AggregateMode, label: string, duckdbMemory: string): Promise<ModeAdapters> {
  return mode === 'embedded' ? openEmbedded(label, duckdbMemory) : openKafka(label);
}

export async function closeMode(a: ModeAdapters): Promise<void> {
  await a.kv.close();
  await a.store.close();
}
