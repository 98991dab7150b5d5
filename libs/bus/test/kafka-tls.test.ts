import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createLogger } from '@spoor/service-log';
import { requireEngine, secureKafka, type SecureKafka } from '@spoor/testkit';
import { KafkaAccessError, KafkaBus, type KafkaBusOptions, type KafkaSasl, type KafkaTls } from '../src/index.js';

// Issue 46: managed Kafka (MSK, Confluent Cloud, Aiven, Strimzi) listens on SASL_SSL or on SSL
// with client certificates. A broker of our own with both listeners, its CA and SCRAM users made
// by the test (libs/testkit secure-kafka-runner.ts); the bus must work through each, and each
// wrong setting must fail its start at once, naming the setting, never retry quietly.
describe('KafkaBus over TLS and SASL', function () {
  this.timeout(120_000);
  let kafka: SecureKafka;
  const logger = createLogger('kafka-tls-test', 'error');
  const buses: KafkaBus[] = [];

  before(async function () {
    const started = await secureKafka();
    requireEngine(this, started?.url ?? null, 'kafka');
    kafka = started!;
  });
  after(async () => {
    await Promise.all(buses.map((b) => b.close()));
  });

  const options = (broker: string, tls: KafkaTls | null, sasl: KafkaSasl | null = null): KafkaBusOptions => ({
    brokers: [broker],
    clientId: 'kafka-tls-test',
    logger,
    partitions: 1,
    replicationFactor: 1,
    tls,
    sasl,
  });

  /** Publishes one message and waits until a consumer of the same bus reads it back. */
  async function roundTrip(opts: KafkaBusOptions): Promise<void> {
    const bus = await KafkaBus.connect(opts);
    buses.push(bus);
    const topic = `test.tls.${randomUUID().slice(0, 8)}`;
    const value = randomUUID();
    let delivered!: () => void;
    const seen = new Promise<void>((resolve) => (delivered = resolve));
    const subscription = await bus.subscribe({
      topic,
      group: `g-${randomUUID().slice(0, 8)}`,
      handler: async (batch) => {
        if (batch.some((m) => m.value === value)) delivered();
      },
    });
    try {
      await bus.publish(topic, [{ key: 'k', value }]);
      await seen;
    } finally {
      await subscription.stop();
    }
  }

  /** Connect must fail within `boundMs` with a KafkaAccessError matching `pattern`; returns the time taken. */
  async function failsFast(opts: KafkaBusOptions, pattern: RegExp, boundMs = 10_000): Promise<number> {
    const started = Date.now();
    let error: unknown = null;
    try {
      buses.push(await KafkaBus.connect(opts));
    } catch (err) {
      error = err;
    }
    const took = Date.now() - started;
    expect(error, `connect should have failed: ${String(error)}`).to.be.instanceOf(KafkaAccessError);
    expect((error as Error).message).to.match(pattern);
    expect(took).to.be.below(boundMs);
    process.stderr.write(`      (failed in ${took} ms: ${(error as Error).message})\n`);
    return took;
  }

  const ca = () => ({ ca: kafka.pki.ca });

  for (const mechanism of ['plain', 'scram-sha-256', 'scram-sha-512'] as const) {
    it(`produces and consumes over SASL_SSL with ${mechanism}`, async () => {
      await roundTrip(options(kafka.saslSsl, ca(), { mechanism, ...kafka.users[mechanism] }));
    });
  }

  it('produces and consumes over mutual TLS with a client certificate', async () => {
    const { cert, key } = kafka.pki.client;
    await roundTrip(options(kafka.mtls, { ...ca(), cert, key }));
  });

  it('verifies the hostname: the certificate names localhost, so connecting by that name works', async () => {
    const broker = kafka.saslSsl.replace('127.0.0.1', 'localhost');
    await roundTrip(options(broker, ca(), { mechanism: 'plain', ...kafka.users.plain }));
  });

  it('fails at start on a wrong password, naming the SASL settings', async () => {
    const { username } = kafka.users['scram-sha-512'];
    await failsFast(
      options(kafka.saslSsl, ca(), { mechanism: 'scram-sha-512', username, password: 'wrong' }),
      /refused the SASL credentials.*SPOOR_KAFKA_SASL_USERNAME \/ SPOOR_KAFKA_SASL_PASSWORD/,
    );
    await failsFast(
      options(kafka.saslSsl, ca(), { mechanism: 'plain', username: 'nobody', password: 'wrong' }),
      /refused the SASL credentials \(plain\)/,
    );
  });

  it('fails at start on a certificate its CA did not sign, naming SPOOR_KAFKA_TLS_CA_FILE', async () => {
    await failsFast(
      options(
        kafka.saslSsl,
        { ca: readFileSync(kafka.pki.otherCaFile, 'utf8') },
        { mechanism: 'plain', ...kafka.users.plain },
      ),
      /certificate .* is not trusted.*SPOOR_KAFKA_TLS_CA_FILE/,
    );
    // No CA: the system's, which never signed a test CA.
    await failsFast(
      options(kafka.saslSsl, {}, { mechanism: 'plain', ...kafka.users.plain }),
      /is not trusted.*SPOOR_KAFKA_TLS_CA_FILE/,
    );
  });

  it('fails at start as a plaintext client of the TLS listener, naming SPOOR_KAFKA_TLS', async () => {
    await failsFast(options(kafka.saslSsl, null), /probably requires TLS.*\(SPOOR_KAFKA_TLS \//);
    await failsFast(
      options(kafka.saslSsl, null, { mechanism: 'plain', ...kafka.users.plain }),
      /probably requires TLS.*\(SPOOR_KAFKA_TLS \//,
    );
  });

  it('fails at start without SASL on the SASL_SSL listener, and without a client certificate on the mTLS one', async () => {
    await failsFast(options(kafka.saslSsl, ca()), /probably requires SASL.*SPOOR_KAFKA_SASL_MECHANISM/);
    await failsFast(options(kafka.mtls, ca()), /client certificate.*SPOOR_KAFKA_TLS_CERT_FILE/);
  });

  it('fails at start with TLS against a plaintext listener, naming SPOOR_KAFKA_TLS', async () => {
    await failsFast(options(kafka.plaintext, ca()), /does not speak TLS.*SPOOR_KAFKA_TLS/);
  });
});
