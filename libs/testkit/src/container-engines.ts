import type { StartedTestContainer } from 'testcontainers';
import { freePort } from './runners/port-allocator.js';
import { kafkaAnswers } from './runners/kafka-probe.js';
import { pollUntil } from './runners/readiness-poller.js';
import type { StartedEngine } from './started-engine.js';

export const KAFKA_IMAGE = 'apache/kafka:3.9.1';
export const CLICKHOUSE_IMAGE = 'clickhouse/clickhouse-server:25.8';
export const REDIS_IMAGE = 'redis:7';
const STARTUP_TIMEOUT_MS = 180_000; // includes the image pull on a cold machine

// Imported on demand: loading testcontainers costs time, and testcontainers 12 pulls in
// undici 8, which does not load on Node < 22.19; the registry falls back to local runners.
async function testcontainers(): Promise<typeof import('testcontainers')> {
  return import('testcontainers');
}

function asEngine(container: StartedTestContainer, url: string): StartedEngine {
  return { url, stop: async () => void (await container.stop()) };
}

/**
 * Kafka must advertise the address clients will dial, which for a container is only known
 * once its port is mapped; binding a host port chosen beforehand avoids the two-phase
 * start the testcontainers Kafka module uses.
 */
export async function startKafkaContainer(): Promise<StartedEngine> {
  const { GenericContainer, getContainerRuntimeClient } = await testcontainers();
  const host = (await getContainerRuntimeClient()).info.containerRuntime.host;
  const port = await freePort();
  const container = await new GenericContainer(KAFKA_IMAGE)
    .withEnvironment({
      KAFKA_NODE_ID: '1',
      KAFKA_PROCESS_ROLES: 'broker,controller',
      KAFKA_LISTENERS: 'PLAINTEXT://0.0.0.0:9092,CONTROLLER://localhost:9093',
      KAFKA_ADVERTISED_LISTENERS: `PLAINTEXT://${host}:${port}`,
      KAFKA_CONTROLLER_LISTENER_NAMES: 'CONTROLLER',
      KAFKA_LISTENER_SECURITY_PROTOCOL_MAP: 'CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT',
      KAFKA_CONTROLLER_QUORUM_VOTERS: '1@localhost:9093',
      KAFKA_AUTO_CREATE_TOPICS_ENABLE: 'true',
      KAFKA_NUM_PARTITIONS: '4',
      KAFKA_OFFSETS_TOPIC_REPLICATION_FACTOR: '1',
      KAFKA_OFFSETS_TOPIC_NUM_PARTITIONS: '4',
      KAFKA_TRANSACTION_STATE_LOG_REPLICATION_FACTOR: '1',
      KAFKA_TRANSACTION_STATE_LOG_MIN_ISR: '1',
      KAFKA_GROUP_INITIAL_REBALANCE_DELAY_MS: '0',
    })
    .withExposedPorts({ container: 9092, host: port })
    .withStartupTimeout(STARTUP_TIMEOUT_MS)
    .start();
  const brokers = `${host}:${port}`;
  try {
    await pollUntil(`kafka container on ${brokers}`, () => kafkaAnswers(brokers), {
      timeoutMs: 90_000,
      intervalMs: 250,
    });
  } catch (error) {
    await container.stop();
    throw error;
  }
  return asEngine(container, brokers);
}

export async function startClickHouseContainer(): Promise<StartedEngine> {
  const { GenericContainer, Wait } = await testcontainers();
  const container = await new GenericContainer(CLICKHOUSE_IMAGE)
    // Recent images refuse network logins for a password-less `default` without this.
    .withEnvironment({ CLICKHOUSE_SKIP_USER_SETUP: '1' })
    .withExposedPorts(8123)
    .withWaitStrategy(Wait.forHttp('/ping', 8123).forStatusCode(200))
    .withStartupTimeout(STARTUP_TIMEOUT_MS)
    .start();
  return asEngine(container, `http://${container.getHost()}:${container.getMappedPort(8123)}`);
}

export async function startRedisContainer(): Promise<StartedEngine> {
  const { GenericContainer, Wait } = await testcontainers();
  const container = await new GenericContainer(REDIS_IMAGE)
    .withCommand(['redis-server', '--save', '', '--appendonly', 'no'])
    .withExposedPorts(6379)
    .withWaitStrategy(Wait.forLogMessage('Ready to accept connections'))
    .withStartupTimeout(STARTUP_TIMEOUT_MS)
    .start();
  return asEngine(container, `redis://${container.getHost()}:${container.getMappedPort(6379)}`);
}
