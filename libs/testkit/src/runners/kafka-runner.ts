import { createHash, randomBytes } from 'node:crypto';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { StartedEngine } from '../started-engine.js';
import { makeTempDir } from '../temp-dir-registry.js';
import { withCacheLock } from './cache-lock.js';
import { kafkaAnswers } from './kafka-probe.js';
import { ManagedProcess } from './managed-process.js';
import { runToCompletion } from './one-shot-command.js';
import { freePort } from './port-allocator.js';
import { pollUntil } from './readiness-poller.js';
import { restartable, type RestartableEngine } from './restartable-engine.js';
import { cachePath, deployLocalPath } from './repo-paths.js';

/** Passed to Maven as -Dkafka.version, overriding the pom's default (keep both in step). */
export const KAFKA_VERSION = '3.9.1';

// A test broker needs little memory; SerialGC and C1-only JIT trade peak throughput for a
// start-up of a couple of seconds on a 2-core machine.
export const JVM_OPTIONS = [
  '-Xms128m',
  '-Xmx512m',
  '-XX:+UseSerialGC',
  '-XX:TieredStopAtLevel=1',
  '-Djava.awt.headless=true',
];
const FETCH_TIMEOUT_MS = 15 * 60_000;

export function javaCommand(): string {
  const home = process.env.JAVA_HOME;
  return home ? join(home, 'bin', 'java') : 'java';
}

/**
 * The broker's jars, fetched once into .cache/kafka/<version>/libs by Maven from the pom in
 * deploy/local/kafka (Maven Central being the one place we may download from). READY holds
 * the pom's hash, so editing the pom refetches.
 */
export async function ensureKafkaLibs(): Promise<string> {
  const home = cachePath('kafka', KAFKA_VERSION);
  const libs = join(home, 'libs');
  const readyFile = join(home, 'READY');
  const pom = deployLocalPath('kafka', 'pom.xml');
  const pomHash = createHash('sha256')
    .update(await readFile(pom))
    .digest('hex');
  const isReady = async (): Promise<boolean> => (await readFile(readyFile, 'utf8').catch(() => '')) === pomHash;
  if (await isReady()) return libs;
  return withCacheLock(`${home}.lock`, FETCH_TIMEOUT_MS, async () => {
    if (await isReady()) return libs; // another process fetched while we waited
    process.stderr.write(`testkit: fetching Kafka ${KAFKA_VERSION} jars with Maven into ${libs} (once)\n`);
    await rm(home, { recursive: true, force: true });
    await mkdir(home, { recursive: true });
    await runToCompletion({
      label: `Maven fetch of Kafka ${KAFKA_VERSION}`,
      command: 'mvn',
      args: [
        '-q',
        '-B',
        '-f',
        pom,
        'dependency:copy-dependencies',
        `-DoutputDirectory=${libs}`,
        `-Dkafka.version=${KAFKA_VERSION}`,
      ],
      logFile: join(home, 'fetch.log'),
      timeoutMs: FETCH_TIMEOUT_MS,
    });
    await writeFile(readyFile, pomHash);
    return libs;
  });
}

/** Kafka's cluster ids are 16 random bytes in URL-safe base64 without padding. */
export function newClusterId(): string {
  // A leading '-' makes kafka-storage read the id as an option ("expected one argument").
  for (;;) {
    const id = randomBytes(16).toString('base64url');
    if (!id.startsWith('-')) return id;
  }
}

function brokerProperties(dataDir: string, port: number, controllerPort: number): string {
  return [
    'process.roles=broker,controller',
    'node.id=1',
    `controller.quorum.voters=1@127.0.0.1:${controllerPort}`,
    `listeners=PLAINTEXT://127.0.0.1:${port},CONTROLLER://127.0.0.1:${controllerPort}`,
    `advertised.listeners=PLAINTEXT://127.0.0.1:${port}`,
    'controller.listener.names=CONTROLLER',
    'inter.broker.listener.name=PLAINTEXT',
    'listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT',
    `log.dirs=${dataDir}`,
    'auto.create.topics.enable=true',
    'num.partitions=4',
    'offsets.topic.replication.factor=1',
    // 4 instead of 50: the first consumer group to join waits for these to be created.
    'offsets.topic.num.partitions=4',
    'transaction.state.log.replication.factor=1',
    'transaction.state.log.min.isr=1',
    'transaction.state.log.num.partitions=4',
    'group.initial.rebalance.delay.ms=0',
    'num.network.threads=2',
    'num.io.threads=4',
    '',
  ].join('\n');
}

/** A single-node KRaft broker+controller on the machine's JDK, in a fresh temp dir. */
export async function startLocalKafka(): Promise<StartedEngine> {
  const { brokers, launch } = await prepareLocalKafka();
  const broker = await launch();
  return { url: brokers, stop: () => broker.stop() };
}

/** The same broker as one a fault test may halt and restart on its port and data dir (issue 16). */
export async function startRestartableKafka(): Promise<RestartableEngine> {
  const { brokers, launch } = await prepareLocalKafka();
  return restartable(brokers, launch);
}

/** Formats the storage of a fresh broker; `launch` starts it (again) and waits until it answers. */
async function prepareLocalKafka(): Promise<{ brokers: string; launch: () => Promise<ManagedProcess> }> {
  const libs = await ensureKafkaLibs();
  const dir = await makeTempDir('kafka');
  const dataDir = join(dir, 'data');
  const config = join(dir, 'server.properties');
  const [port, controllerPort] = [await freePort(), await freePort()];
  await writeFile(config, brokerProperties(dataDir, port, controllerPort));
  const logFile = join(dir, 'kafka.log');
  const jvm = [
    ...JVM_OPTIONS,
    `-Dlog4j.configuration=file:${deployLocalPath('kafka', 'log4j.properties')}`,
    `-Dkafka.logs.dir=${dir}`,
    '-cp',
    join(libs, '*'),
  ];

  await runToCompletion({
    label: 'Kafka storage format',
    command: javaCommand(),
    args: [...jvm, 'kafka.tools.StorageTool', 'format', '-t', newClusterId(), '-c', config, '--ignore-formatted'],
    logFile,
    timeoutMs: 60_000,
  });
  const brokers = `127.0.0.1:${port}`;
  const launch = async (): Promise<ManagedProcess> => {
    const broker = ManagedProcess.start({
      name: 'kafka',
      command: javaCommand(),
      args: [...jvm, 'kafka.Kafka', config],
      logFile,
      stopGraceMs: 20_000,
    });
    try {
      await pollUntil(`kafka on ${brokers}`, () => kafkaAnswers(brokers), {
        timeoutMs: 90_000,
        intervalMs: 250,
        abortReason: () => broker.exitReason(),
      });
    } catch (error) {
      const failure = await broker.failure((error as Error).message);
      await broker.stop();
      throw failure;
    }
    return broker;
  };
  return { brokers, launch };
}
