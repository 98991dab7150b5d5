import type { Context } from 'mocha';
import { startClickHouseContainer, startKafkaContainer, startRedisContainer } from './container-engines.js';
import { enginesOff, engineUrl, reportLeftOut, startOwned, type EngineDefinition } from './engine-registry.js';
import { startLocalClickHouse, startRestartableClickHouse, ensureChdbVenv } from './runners/chdb-runner.js';
import { ensureKafkaLibs, startLocalKafka, startRestartableKafka } from './runners/kafka-runner.js';
import { startLocalRedis, startRestartableRedis, startTlsRedis } from './runners/redis-runner.js';
import { startTlsProxy } from './runners/tls-proxy.js';
import { makeTestPki, type PemPair, type TestPki } from './runners/test-pki.js';
import type { StartedEngine } from './started-engine.js';
import type { RestartableEngine } from './runners/restartable-engine.js';
import { startSecureKafka, type SecureKafka } from './runners/secure-kafka-runner.js';

export type { RestartableEngine, SecureKafka };
export type { KafkaUser } from './runners/secure-kafka-runner.js';
export { type TestPki, type PemPair } from './runners/test-pki.js';
export { makeTestPki };

export { stopAllEngines } from './engine-registry.js';
export { makeTempDir } from './temp-dir-registry.js';
export { dnsServer, type DnsServer, type TxtRecord } from './runners/dns-runner.js';

// Real engines for the tests, started by the tests themselves. Order of preference:
// the SPOOR_* variable (an engine you run), a Docker engine via testcontainers, the local
// runners in ./runners (Kafka on the JDK, chDB behind ClickHouse's HTTP API, redis-server).
// See deploy/local/README.md.

const kafka: EngineDefinition = {
  name: 'kafka',
  envVar: 'SPOOR_KAFKA_BROKERS',
  startLocal: startLocalKafka,
  startContainer: startKafkaContainer,
};
const clickhouse: EngineDefinition = {
  name: 'clickhouse',
  envVar: 'SPOOR_CLICKHOUSE_URL',
  startLocal: startLocalClickHouse,
  startContainer: startClickHouseContainer,
};
const redis: EngineDefinition = {
  name: 'redis',
  envVar: 'SPOOR_REDIS_URL',
  startLocal: startLocalRedis,
  startContainer: startRedisContainer,
};

/** Comma-separated brokers, e.g. `127.0.0.1:39092`; null when Kafka could not start. */
export function kafkaBrokers(): Promise<string | null> {
  return engineUrl(kafka);
}

/** ClickHouse HTTP endpoint, e.g. `http://127.0.0.1:38123`; null when it could not start. */
export function clickhouseUrl(): Promise<string | null> {
  return engineUrl(clickhouse);
}

/** e.g. `redis://127.0.0.1:36379`; null when Redis could not start. */
export function redisUrl(): Promise<string | null> {
  return engineUrl(redis);
}

/**
 * A private engine the caller may halt and restart on the same port and data dir (fault tests,
 * issue 16); always a local runner (deploy/local), never the shared engine or a SPOOR_* one,
 * which other tests use. Null (reported SKIPPED) when it cannot start. Each costs a start:
 * Kafka's JVM takes a few seconds and up to 512 MB.
 */
export function restartableEngine(name: 'kafka' | 'clickhouse' | 'redis'): Promise<RestartableEngine | null> {
  const starters = {
    kafka: startRestartableKafka,
    clickhouse: startRestartableClickHouse,
    redis: startRestartableRedis,
  };
  return startOwned(name, starters[name]);
}

/**
 * A private broker with SASL_SSL and mTLS listeners, its CA and users (issue 46); always a local
 * runner, a second JVM beside the shared broker. Null (reported SKIPPED) when it cannot start;
 * SPOOR_TEST_ENGINES=none starts nothing.
 */
export function secureKafka(): Promise<SecureKafka | null> {
  if (enginesOff()) {
    reportLeftOut('kafka');
    return Promise.resolve(null);
  }
  return startOwned('kafka', startSecureKafka);
}

/** An engine behind TLS, with the PKI its certificate came from. */
export type TlsEngine = StartedEngine & { pki: TestPki };

/**
 * redis-server on a TLS port only (issue 46): a `rediss://` URL, the server certificate from
 * `pki` (a fresh one when not given). Null (SKIPPED) when it cannot start.
 */
export async function tlsRedis(pki?: TestPki): Promise<TlsEngine | null> {
  if (enginesOff()) {
    reportLeftOut('redis');
    return null;
  }
  return startOwned('redis', async () => {
    const certs = pki ?? (await makeTestPki());
    return { ...(await startTlsRedis(certs)), pki: certs };
  });
}

/**
 * The shared ClickHouse behind a TLS-terminating proxy (issue 46): an `https://` URL, the
 * server certificate `server` or that of `pki` (a fresh one when not given). Null (SKIPPED) when ClickHouse
 * cannot start.
 */
export async function tlsClickHouse(pki?: TestPki, server?: PemPair): Promise<TlsEngine | null> {
  const plain = await clickhouseUrl();
  if (plain === null) return null;
  return startOwned('clickhouse', async () => {
    const certs = pki ?? (await makeTestPki());
    return { ...(await startTlsProxy(plain, certs, server ?? certs.server)), pki: certs };
  });
}

/**
 * Skips the current test (or every test under a hook) when the engine is missing; after
 * it, TypeScript knows `value` is a string.
 *
 *   const url = await redisUrl();
 *   requireEngine(this, url, 'redis');
 */
export function requireEngine(ctx: Context, value: string | null, name: string): asserts value is string {
  if (value === null) {
    ctx.skip();
    throw new Error(`${name} is not available`); // not reached: skip() throws mocha's Pending
  }
}

/**
 * Downloads what the local runners need (Kafka jars, the chDB venv) without starting
 * anything, so a slow first fetch does not eat a test's timeout. `.ci/run` and
 * `engines.mjs prepare` call it.
 */
export async function prepareLocalEngines(): Promise<void> {
  await Promise.all([ensureKafkaLibs(), ensureChdbVenv()]);
}
