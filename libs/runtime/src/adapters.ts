import { randomUUID } from 'node:crypto';
import { join, resolve } from 'node:path';
import type { Config } from '@spoor/config';
import type { Logger } from '@spoor/service-log';
import { kvKeys } from '@spoor/schemas';
import { openBus, topicNames, type Bus } from '@spoor/bus';
import { announcingStore, openStore, StoreChangeFeed, type CredentialMark, type Store } from '@spoor/store';
import { MemoryKv, RedisKv, type Kv } from '@spoor/kv';
import { secureDataDir } from './data-dir-permissions.js';

/** The adapters behind libs/: Kafka or the embedded log, ClickHouse or DuckDB, Redis or memory. */
export interface Adapters {
  bus: Bus;
  store: Store;
  kv: Kv;
  topics: ReturnType<typeof topicNames>;
  /**
   * This process' writes to projects and accounts, as `store` made them (and, in an all-in-one
   * process, those of its pipeline thread): the gateway's record cache forgets on each.
   */
  changes: StoreChangeFeed;
  /**
   * Where the KV is shared by every process (Redis): the mark that this process' writes to API
   * keys and revocations move before they answer, so a gateway may cache both (record-cache.ts).
   * Null where one process holds the store and the KV.
   */
  credentialMark: CredentialMark | null;
  close(): Promise<void>;
}

/**
 * Opens what the configuration names; each unset URL falls back to its embedded counterpart
 * under the data directory (DESIGN.md, Architecture). Migrations run before anything serves.
 * `elsewhere`: the store and KV live on another thread, which gets the bus first
 * (pipeline-thread.ts).
 */
export async function openAdapters(
  config: Config,
  logger: Logger,
  elsewhere?: (bus: Bus) => Promise<{ store: Store; kv: Kv }>,
): Promise<Adapters> {
  const dataDir = resolve(config.dataDir);
  await secureDataDir(dataDir, logger);
  const bus = await openBusOf(config, logger);
  let rest: { store: Store; kv: Kv };
  try {
    rest = elsewhere ? await elsewhere(bus) : { store: await openStoreOf(config), kv: await openKvOf(config) };
  } catch (err) {
    await bus.close();
    throw err;
  }
  logger.info('adapters open', { bus: bus.kind, store: rest.store.kind, kv: rest.kv.kind, dataDir });
  return assembleAdapters(config, bus, rest.store, rest.kv, logger);
}

/** The bus the configuration names: Kafka, or the embedded log under the data directory. */
export function openBusOf(config: Config, logger: Logger): Promise<Bus> {
  return config.kafkaBrokers
    ? openBus({
        kind: 'kafka',
        brokers: config.kafkaBrokers,
        clientId: `spoor-${config.services.join('-')}`,
        logger: logger.child('bus'),
        partitions: config.kafkaPartitions,
        replicationFactor: config.kafkaReplicationFactor ?? undefined,
        retentionMs: config.busRetentionMs,
        tls: config.kafkaTls,
        sasl: config.kafkaSasl,
      })
    : openBus({
        kind: 'embedded',
        dir: join(resolve(config.dataDir), 'bus'),
        logger: logger.child('bus'),
        fsync: config.busFsync,
        fsyncIntervalMs: config.busFsyncIntervalMs,
        retentionMs: config.busRetentionMs,
      });
}

/** The store the configuration names, migrated: ClickHouse, or DuckDB under the data directory. */
export async function openStoreOf(config: Config): Promise<Store> {
  const store = config.clickhouseUrl
    ? await openStore({
        kind: 'clickhouse',
        url: config.clickhouseUrl,
        database: config.clickhouseDatabase,
        tls: config.clickhouseTls,
      })
    : await openStore({
        kind: 'duckdb',
        path: duckdbPath(config),
        memoryLimit: config.duckdbMemory,
        keyWindow: config.duckdbKeyWindow,
        threads: config.duckdbThreads,
      });
  await store.migrate();
  return store;
}

export function duckdbPath(config: Config): string {
  return join(resolve(config.dataDir), 'spoor.duckdb');
}

export async function openKvOf(config: Config): Promise<Kv> {
  return config.redisUrl ? RedisKv.connect(config.redisUrl, config.topicPrefix, config.redisTls) : new MemoryKv();
}

/**
 * Adapters over what is open, the store announcing its writes on `changes` (and, on a shared
 * KV, moving the credential mark); close() closes the bus, then the KV, then the store.
 */
export function assembleAdapters(config: Config, bus: Bus, store: Store, kv: Kv, logger: Logger): Adapters {
  const changes = new StoreChangeFeed();
  const credentialMark = kv instanceof RedisKv ? redisCredentialMark(kv) : null;
  const failed = (err: unknown) =>
    logger.warn(
      'could not move the credential mark; other gateways forget their cached credentials within SPOOR_GATEWAY_CACHE_MS',
      { err },
    );
  return {
    bus,
    store: announcingStore(store, changes, credentialMark ? { mark: credentialMark, failed } : undefined),
    kv,
    changes,
    credentialMark,
    topics: topicNames(config.topicPrefix),
    async close() {
      await bus.close();
      await kv.close();
      await store.close();
    },
  };
}

/**
 * The credential mark as one Redis key: a fresh random value per move, so it never comes back to
 * one a gateway saw. While Redis is not connected a read fails at once (the gateway then asks the
 * store), rather than after the command timeout.
 */
function redisCredentialMark(kv: RedisKv): CredentialMark {
  const key = kvKeys.credentialMark();
  return {
    read: () => (kv.ready() ? kv.get(key) : Promise.reject(new Error('Redis is not connected'))),
    move: () => kv.set(key, randomUUID()),
  };
}
