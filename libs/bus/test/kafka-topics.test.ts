import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { Kafka, logLevel } from 'kafkajs';
import { createLogger } from '@spoor/service-log';
import { kafkaBrokers, requireEngine } from '@spoor/testkit';
import { KafkaBus } from '../src/index.js';

// Issue 19: the partition count Spoor creates its topics with is what caps how many copies of a
// consumer share a topic (KEDA's maxReplicaCount in deploy/k8s), so it must be the configured one.
describe('KafkaBus topic creation', function () {
  this.timeout(90_000);
  let brokers: string[];
  const buses: KafkaBus[] = [];
  const admin = () => new Kafka({ clientId: 'topics-test', brokers, logLevel: logLevel.NOTHING }).admin();

  before(async function () {
    const found = await kafkaBrokers();
    requireEngine(this, found, 'kafka');
    brokers = found.split(',');
  });
  after(async () => {
    for (const bus of buses) await bus.close();
  });

  async function partitionsOf(topic: string): Promise<number> {
    const a = admin();
    await a.connect();
    try {
      const meta = await a.fetchTopicMetadata({ topics: [topic] });
      return meta.topics[0]!.partitions.length;
    } finally {
      await a.disconnect();
    }
  }

  it('creates a topic with the configured partitions, and keeps an existing topic as it is, saying so', async () => {
    const topic = `test.partitions.${randomUUID().slice(0, 8)}`;
    const lines: string[] = [];
    const logger = createLogger('topics-test', 'warn', (l) => void lines.push(l));
    const first = await KafkaBus.connect({
      brokers,
      clientId: 'topics-test',
      logger,
      partitions: 6,
      replicationFactor: 1,
    });
    buses.push(first);
    await first.publish(topic, [{ key: 'k', value: 'v' }]);
    expect(await partitionsOf(topic)).to.equal(6);
    expect(lines.join('')).not.to.contain('another partition count');

    const second = await KafkaBus.connect({ brokers, clientId: 'topics-test', logger, partitions: 9 });
    buses.push(second);
    await second.publish(topic, [{ key: 'k', value: 'v2' }]);
    expect(await partitionsOf(topic)).to.equal(6);
    const warning = lines
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .find((l) => l['msg'] === 'topic exists with another partition count; it is kept');
    expect(warning).to.include({ topic, partitions: 6, configured: 9 });
  });
});
