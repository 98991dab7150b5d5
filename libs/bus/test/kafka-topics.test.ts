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

  async function configOf(topic: string): Promise<Record<string, string>> {
    const a = admin();
    await a.connect();
    try {
      const { resources } = await a.describeConfigs({
        resources: [
          { type: 2 /* ConfigResourceTypes.TOPIC */, name: topic, configNames: ['retention.ms', 'segment.ms'] },
        ],
        includeSynonyms: false,
      });
      return Object.fromEntries(resources[0]!.configEntries.map((e) => [e.configName, e.configValue]));
    } finally {
      await a.disconnect();
    }
  }

  const retentionWarnings = (lines: string[]) =>
    lines
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .filter((l) => l['msg'] === 'topic keeps raw events longer than SPOOR_BUS_RETENTION_HOURS; it is kept');

  // Issue 43: raw events (client IPs) must not stay on the broker for its default 7 days.
  it('creates a topic with retention.ms (and segment.ms) from SPOOR_BUS_RETENTION_HOURS', async () => {
    const topic = `test.retention.${randomUUID().slice(0, 8)}`;
    const lines: string[] = [];
    const logger = createLogger('topics-test', 'warn', (l) => void lines.push(l));
    const bus = await KafkaBus.connect({
      brokers,
      clientId: 'topics-test',
      logger,
      replicationFactor: 1,
      retentionMs: 2 * HOUR,
    });
    buses.push(bus);
    await bus.publish(topic, [{ key: 'k', value: 'v' }]);
    expect(await configOf(topic)).to.include({ 'retention.ms': String(2 * HOUR), 'segment.ms': String(HOUR / 2) });

    // Another process with the same or a longer setting finds nothing to say.
    const longer = await KafkaBus.connect({ brokers, clientId: 'topics-test', logger, retentionMs: 3 * HOUR });
    buses.push(longer);
    await longer.publish(topic, [{ key: 'k', value: 'v2' }]);
    expect(retentionWarnings(lines)).to.deep.equal([]);
  });

  it('warns once per topic at start when an existing topic keeps raw events longer, and leaves it as it is', async () => {
    const topic = `test.retention.${randomUUID().slice(0, 8)}`;
    const a = admin();
    await a.connect();
    try {
      // Created before, by hand or by a Spoor without a retention, keeping its events 7 days.
      await a.createTopics({
        topics: [
          {
            topic,
            numPartitions: 4,
            replicationFactor: 1,
            configEntries: [{ name: 'retention.ms', value: String(7 * 24 * HOUR) }],
          },
        ],
        waitForLeaders: true,
      });
    } finally {
      await a.disconnect();
    }
    const lines: string[] = [];
    const logger = createLogger('topics-test', 'warn', (l) => void lines.push(l));
    const bus = await KafkaBus.connect({ brokers, clientId: 'topics-test', logger, retentionMs: 24 * HOUR });
    buses.push(bus);
    await bus
      .subscribe({ topic, group: `g-${randomUUID().slice(0, 8)}`, handler: async () => {} })
      .then((s) => s.stop());
    await bus.publish(topic, [{ key: 'k', value: 'v' }]);
    await bus.publish(topic, [{ key: 'k', value: 'v2' }]);
    const warnings = retentionWarnings(lines);
    expect(warnings).to.have.length(1);
    expect(warnings[0]).to.include({ topic, retention_ms: String(7 * 24 * HOUR), configured_ms: 24 * HOUR });
    expect((await configOf(topic))['retention.ms']).to.equal(String(7 * 24 * HOUR));
  });
});

const HOUR = 3_600_000;
