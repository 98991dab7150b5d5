import { randomUUID } from 'node:crypto';
import { clickhouseUrl, kafkaBrokers, redisUrl } from '@spoor/testkit';

export type Mode = 'embedded' | 'kafka';
export const MODES: Mode[] = ['embedded', 'kafka'];

/**
 * Environment for one isolated deployment: the embedded default needs only a data dir; Kafka
 * mode gets the real engines with a fresh topic prefix and ClickHouse database, so runs never
 * see each other's data. Null when an engine is missing (the caller skips, loudly).
 */
export async function modeEnv(mode: Mode, dataDir: string): Promise<Record<string, string> | null> {
  const base = { SPOOR_DATA_DIR: dataDir, SPOOR_PORT: '0', SPOOR_LOG_LEVEL: 'error' };
  if (mode === 'embedded') return base;
  const [brokers, clickhouse, redis] = await Promise.all([kafkaBrokers(), clickhouseUrl(), redisUrl()]);
  if (!brokers || !clickhouse || !redis) return null;
  const run = randomUUID().replace(/-/g, '').slice(0, 10);
  return {
    ...base,
    SPOOR_KAFKA_BROKERS: brokers,
    SPOOR_CLICKHOUSE_URL: clickhouse,
    SPOOR_CLICKHOUSE_DATABASE: `spoor_${run}`,
    SPOOR_REDIS_URL: redis,
    SPOOR_TOPIC_PREFIX: `t${run}.`,
  };
}
