// The adapters a benchmark runs the real code on, as the host wires them
// (libs/runtime/src/adapters.ts): embedded = DuckDB on a temp file and the memory KV; kafka =
// ClickHouse and Redis from @spoor/testkit (an SPOOR_* URL, a container, or the local runners:
// chDB behind ClickHouse's HTTP API, redis-server). No bus. Each call opens a fresh store.
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { MemoryKv, RedisKv, type Kv } from '@spoor/kv';
import { openStore, type Store } from '@spoor/store';
import { clickhouseUrl, makeTempDir, redisUrl } from '@spoor/testkit';

export type BenchMode = 'embedded' | 'kafka';

export interface ModeAdapters {
  store: Store;
  kv: Kv;
  /** What the store and KV are, for the report. */
  describe: string;
}

export interface ModeOptions {
  /** Names the temp dir, the database and the Redis prefix: `bench-<bench>…`. */
  bench: string;
  /** Tells stores of one run apart (a project size). */
  label?: string;
  /** DuckDB's memory limit (SPOOR_DUCKDB_MEMORY's default is 1GB). */
  duckdbMemory?: string;
}

async function openEmbedded(o: ModeOptions): Promise<ModeAdapters> {
  const memoryLimit = o.duckdbMemory ?? '1GB';
  const path = join(await makeTempDir(['bench', o.bench, o.label].filter(Boolean).join('-')), 'spoor.duckdb');
  const store = await openStore({ kind: 'duckdb', path, memoryLimit });
  await store.migrate();
  return { store, kv: new MemoryKv(), describe: `DuckDB (file ${path}, ${memoryLimit} memory limit), memory KV` };
}

async function openKafka(o: ModeOptions): Promise<ModeAdapters> {
  const [ch, redis] = await Promise.all([clickhouseUrl(), redisUrl()]);
  if (!ch || !redis)
    throw new Error(
      `engines missing: ${[!ch && 'clickhouse', !redis && 'redis'].filter(Boolean).join(', ')} could not start`,
    );
  // A fresh database per call; the testkit's stand-in goes away with its temp dir, a ClickHouse
  // named by SPOOR_CLICKHOUSE_URL keeps it (the Store has no drop).
  const database = ['bench', o.bench, o.label, randomUUID().replace(/-/g, '').slice(0, 12)].filter(Boolean).join('_');
  const store = await openStore({ kind: 'clickhouse', url: ch, database });
  await store.migrate();
  const kv = await RedisKv.connect(redis, `bench-${o.bench}.${Date.now()}.`);
  return { store, kv, describe: `ClickHouse at ${ch} (database ${database}), Redis at ${redis}` };
}

/** Opened and migrated; throws when an engine of the mode is missing. */
export function openMode(mode: BenchMode, o: ModeOptions): Promise<ModeAdapters> {
  return mode === 'embedded' ? openEmbedded(o) : openKafka(o);
}

export async function closeMode(a: ModeAdapters): Promise<void> {
  await a.kv.close();
  await a.store.close();
}
