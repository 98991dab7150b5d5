import { randomBytes } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { StartedEngine } from '../started-engine.js';
import { makeTempDir } from '../temp-dir-registry.js';
import { ensureKafkaLibs, javaCommand, JVM_OPTIONS, newClusterId } from './kafka-runner.js';
import { kafkaAnswers } from './kafka-probe.js';
import { ManagedProcess } from './managed-process.js';
import { runToCompletion } from './one-shot-command.js';
import { freePort } from './port-allocator.js';
import { pollUntil } from './readiness-poller.js';
import { deployLocalPath } from './repo-paths.js';
import { makeTestPki, type TestPki } from './test-pki.js';

export interface KafkaUser {
  username: string;
  password: string;
}

/**
 * A broker as managed Kafka runs them (issue 46): a SASL_SSL listener (PLAIN, SCRAM-SHA-256,
 * SCRAM-SHA-512), an SSL listener that requires a client certificate (mTLS), and a plaintext
 * listener of its own for the readiness probe and inter-broker traffic. Its certificates come
 * from `pki`, which the tests use as the clients' CA and certificate.
 */
export interface SecureKafka extends StartedEngine {
  /** The SASL_SSL listener, `127.0.0.1:<port>`. */
  saslSsl: string;
  /** The SSL listener with `ssl.client.auth=required`. */
  mtls: string;
  /** A PLAINTEXT listener (not what a test's client should need). */
  plaintext: string;
  pki: TestPki;
  users: Record<'plain' | 'scram-sha-256' | 'scram-sha-512', KafkaUser>;
}

/** PEM as one properties line: `\n` escapes, which java.util.Properties turns back into newlines. */
const inline = (pem: string) => pem.trim().replace(/\r?\n/g, '\\n');

const jaas = (module: string, users: Record<string, string> = {}) =>
  `${module} required${Object.entries(users)
    .map(([name, password]) => ` user_${name}="${password}"`)
    .join('')};`;

function secureProperties(
  dir: string,
  ports: Record<'sasl' | 'mtls' | 'plain' | 'controller', number>,
  pki: TestPki,
  plain: KafkaUser,
): string {
  return [
    'process.roles=broker,controller',
    'node.id=1',
    `controller.quorum.voters=1@127.0.0.1:${ports.controller}`,
    `listeners=SASL_SSL://127.0.0.1:${ports.sasl},MTLS://127.0.0.1:${ports.mtls},INTERNAL://127.0.0.1:${ports.plain},CONTROLLER://127.0.0.1:${ports.controller}`,
    `advertised.listeners=SASL_SSL://127.0.0.1:${ports.sasl},MTLS://127.0.0.1:${ports.mtls},INTERNAL://127.0.0.1:${ports.plain}`,
    'listener.security.protocol.map=SASL_SSL:SASL_SSL,MTLS:SSL,INTERNAL:PLAINTEXT,CONTROLLER:PLAINTEXT',
    'controller.listener.names=CONTROLLER',
    'inter.broker.listener.name=INTERNAL',
    // PEM key and chain inline (Kafka >= 2.7): a PEM keystore file would need an encrypted key.
    'ssl.keystore.type=PEM',
    `ssl.keystore.certificate.chain=${inline(pki.server.cert)}`,
    `ssl.keystore.key=${inline(pki.server.key)}`,
    'ssl.truststore.type=PEM',
    `ssl.truststore.certificates=${inline(pki.ca)}`,
    'listener.name.mtls.ssl.client.auth=required',
    'sasl.enabled.mechanisms=PLAIN,SCRAM-SHA-256,SCRAM-SHA-512',
    `listener.name.sasl_ssl.plain.sasl.jaas.config=${jaas('org.apache.kafka.common.security.plain.PlainLoginModule', { [plain.username]: plain.password })}`,
    `listener.name.sasl_ssl.scram-sha-256.sasl.jaas.config=${jaas('org.apache.kafka.common.security.scram.ScramLoginModule')}`,
    `listener.name.sasl_ssl.scram-sha-512.sasl.jaas.config=${jaas('org.apache.kafka.common.security.scram.ScramLoginModule')}`,
    `log.dirs=${join(dir, 'data')}`,
    'num.partitions=2',
    'offsets.topic.replication.factor=1',
    'offsets.topic.num.partitions=2',
    'transaction.state.log.replication.factor=1',
    'transaction.state.log.min.isr=1',
    'transaction.state.log.num.partitions=2',
    'group.initial.rebalance.delay.ms=0',
    'num.network.threads=2',
    'num.io.threads=2',
    '',
  ].join('\n');
}

const user = (name: string): KafkaUser => ({ username: name, password: randomBytes(12).toString('hex') });

/** Starts the broker in a fresh temp dir, with SCRAM users created by the storage format. */
export async function startSecureKafka(): Promise<SecureKafka> {
  const [libs, pki, dir] = await Promise.all([ensureKafkaLibs(), makeTestPki(), makeTempDir('kafka-secure')]);
  const ports = {
    sasl: await freePort(),
    mtls: await freePort(),
    plain: await freePort(),
    controller: await freePort(),
  };
  const users = {
    plain: user('plain-user'),
    'scram-sha-256': user('scram256-user'),
    'scram-sha-512': user('scram512-user'),
  };
  const config = join(dir, 'server.properties');
  await writeFile(config, secureProperties(dir, ports, pki, users.plain), { mode: 0o600 });
  const logFile = join(dir, 'kafka.log');
  const jvm = [
    ...JVM_OPTIONS,
    `-Dlog4j.configuration=file:${deployLocalPath('kafka', 'log4j.properties')}`,
    `-Dkafka.logs.dir=${dir}`,
    '-cp',
    join(libs, '*'),
  ];
  const scram = (mechanism: 'SCRAM-SHA-256' | 'SCRAM-SHA-512', u: KafkaUser) => [
    '--add-scram',
    `${mechanism}=[name=${u.username},password=${u.password}]`,
  ];
  await runToCompletion({
    label: 'Kafka storage format (SCRAM users)',
    command: javaCommand(),
    args: [
      ...jvm,
      'kafka.tools.StorageTool',
      'format',
      '-t',
      newClusterId(),
      '-c',
      config,
      ...scram('SCRAM-SHA-256', users['scram-sha-256']),
      ...scram('SCRAM-SHA-512', users['scram-sha-512']),
    ],
    logFile,
    timeoutMs: 60_000,
  });
  const plaintext = `127.0.0.1:${ports.plain}`;
  const broker = ManagedProcess.start({
    name: 'kafka-secure',
    command: javaCommand(),
    args: [...jvm, 'kafka.Kafka', config],
    logFile,
    stopGraceMs: 20_000,
  });
  try {
    await pollUntil(`secure kafka on ${plaintext}`, () => kafkaAnswers(plaintext), {
      timeoutMs: 90_000,
      intervalMs: 250,
      abortReason: () => broker.exitReason(),
    });
  } catch (error) {
    const failure = await broker.failure((error as Error).message);
    await broker.stop();
    throw failure;
  }
  return {
    url: `127.0.0.1:${ports.sasl}`,
    saslSsl: `127.0.0.1:${ports.sasl}`,
    mtls: `127.0.0.1:${ports.mtls}`,
    plaintext,
    pki,
    users,
    stop: () => broker.stop(),
  };
}
