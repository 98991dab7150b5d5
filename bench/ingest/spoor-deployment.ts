import { randomUUID } from 'node:crypto';
import { loadConfig } from '@spoor/config';
import { createLogger } from '@spoor/service-log';
import { openAdapters } from '@spoor/runtime';
import type { ProjectRecord } from '@spoor/schemas';
import { clickhouseUrl, kafkaBrokers, redisUrl } from '@spoor/testkit';
import { BENCH_ORIGIN, BENCH_PROJECT } from './bench-event.js';

export type SpoorMode = 'embedded' | 'kafka';

export interface StoredCounts {
  raw: number;
  enriched: number;
  /** Sum of event_count over the project's session summaries. */
  sessionEvents: number;
  sessions: number;
}

/**
 * The environment of one isolated all-in-one process. Embedded needs only a data dir; Kafka
 * mode gets the testkit's local engines with a fresh topic prefix and ClickHouse database, so
 * runs never see each other's data. Null when an engine could not start.
 */
export async function spoorEnv(mode: SpoorMode, dataDir: string, port: number): Promise<Record<string, string> | null> {
  // The load comes from one address into one project, far past the default ingest limits (a
  // real site's visitors come from many): the limits stay on, so their cost is measured, but high.
  // Lag read every 100 ms in the background: the drain is timed from those readings.
  const base = {
    SPOOR_DATA_DIR: dataDir,
    SPOOR_HOST: '127.0.0.1',
    SPOOR_PORT: String(port),
    SPOOR_LOG_LEVEL: 'error',
    SPOOR_RATE_INGEST_IP: '100000000',
    SPOOR_RATE_INGEST_PROJECT: '100000000',
    SPOOR_LAG_SAMPLE_MS: '100',
  };
  if (mode === 'embedded') return base;
  const [brokers, clickhouse, redis] = await Promise.all([kafkaBrokers(), clickhouseUrl(), redisUrl()]);
  if (!brokers || !clickhouse || !redis) return null;
  const run = randomUUID().replace(/-/g, '').slice(0, 10);
  return {
    ...base,
    SPOOR_KAFKA_BROKERS: brokers,
    SPOOR_CLICKHOUSE_URL: clickhouse,
    SPOOR_CLICKHOUSE_DATABASE: `spoor_bench_${run}`,
    SPOOR_REDIS_URL: redis,
    SPOOR_TOPIC_PREFIX: `bench${run}.`,
  };
}

/** Opens the adapters the child will use, runs `use`, closes them (DuckDB admits one process). */
async function withAdapters<T>(
  env: Record<string, string>,
  use: (a: Awaited<ReturnType<typeof openAdapters>>) => Promise<T>,
): Promise<T> {
  const adapters = await openAdapters(loadConfig(env), createLogger('bench', 'error'));
  try {
    return await use(adapters);
  } finally {
    await adapters.close();
  }
}

/** Registers the bench project through the store, as the gateway will; before the child starts. */
export function registerBenchProject(env: Record<string, string>): Promise<ProjectRecord> {
  const record: ProjectRecord = {
    project_id: randomUUID(),
    origin: BENCH_ORIGIN,
    project: BENCH_PROJECT,
    account_id: 'acct-bench',
    verified: true,
    verification_token: randomUUID(),
    created_at: Date.now(),
  };
  return withAdapters(env, async ({ store }) => {
    await store.projects.create(record);
    return record;
  });
}

/** What the store holds for the project; call after the child has exited. */
export function countStored(
  env: Record<string, string>,
  projectId: string,
  sessionLimit: number,
): Promise<StoredCounts> {
  return withAdapters(env, async ({ store }) => {
    const sessions = await store.sessions.list(projectId, { limit: sessionLimit });
    return {
      raw: await store.events.countRaw(projectId),
      enriched: await store.events.countEnriched(projectId),
      sessionEvents: sessions.reduce((n, s) => n + s.event_count, 0),
      sessions: sessions.length,
    };
  });
}
