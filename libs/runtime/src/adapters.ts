import { join, resolve } from 'node:path';
import type { Config } from '@spoor/config';
import type { Logger } from '@spoor/log';
import { openBus, topicNames, type Bus } from '@spoor/bus';
import { openStore, type Store } from '@spoor/store';
import { MemoryKv, RedisKv, type Kv } from '@spoor/kv';
import { secureDataDir } from './data-dir-permissions.js';

/** The adapters behind libs/: Kafka or the embedded log, ClickHouse or DuckDB, Redis or memory. */
export interface Adapters {
  bus: Bus;
  store: Store;
  kv: Kv;
  topics: ReturnType<typeof topicNames>;
  close(): Promise<void>;
}

/**
 * Opens what the configuration names; each unset URL falls back to its embedded counterpart
 * under the data directory (DESIGN.md, Architecture). Migrations run before anything serves.
 */
export async function openAdapters(config: Config, logger: Logger): Promise<Adapters> {
  const dataDir = resolve(config.dataDir);
  await secureDataDir(dataDir, logger);
  const bus = config.kafkaBrokers
    ? await openBus({
        kind: 'kafka',
        brokers: config.kafkaBrokers,
        clientId: `spoor-${config.services.join('-')}`,
        logger: logger.child('bus'),
        partitions: config.kafkaPartitions,
        replicationFactor: config.kafkaReplicationFactor ?? undefined,
      })
    : await openBus({ kind: 'embedded', dir: join(dataDir, 'bus'), logger: logger.child('bus') });
  const store = config.clickhouseUrl
    ? await openStore({ kind: 'clickhouse', url: config.clickhouseUrl, database: config.clickhouseDatabase })
    : await openStore({ kind: 'duckdb', path: join(dataDir, 'spoor.duckdb'), memoryLimit: config.duckdbMemory });
  await store.migrate();
  const kv = config.redisUrl ? await RedisKv.connect(config.redisUrl, config.topicPrefix) : new MemoryKv();
  logger.info('adapters open', { bus: bus.kind, store: store.kind, kv: kv.kind, dataDir });
  return {
    bus,
    store,
    kv,
    topics: topicNames(config.topicPrefix),
    async close() {
      await bus.close();
      await kv.close();
      await store.close();
    },
  };
}
