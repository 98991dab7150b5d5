import { expect } from 'chai';
import { ConfigError, loadConfig, redactConfigValue } from '../src/index.js';

describe('loadConfig', () => {
  it('gives the embedded defaults for an empty environment', () => {
    const c = loadConfig({});
    expect(c).to.include({
      port: 8080,
      host: '127.0.0.1',
      dataDir: './data',
      ipMode: 'full',
      kafkaBrokers: null,
      clickhouseUrl: null,
      redisUrl: null,
    });
    expect(c.services).to.deep.equal(['ingest', 'enricher', 'sessionizer', 'classifier', 'worker', 'gateway']);
    expect(c.adminEmails).to.deep.equal([]);
    expect(c).to.include({ kafkaPartitions: 4, kafkaReplicationFactor: null, healthHttp: false });
    expect(c.heapGrowingPercent).to.equal(50);
    expect(c.duckdbKeyWindow).to.equal(500_000);
    expect(c.duckdbThreads).to.equal(1);
    // Issue 41: consumers gather a second's events (or 5,000) per batch; lag read every second.
    expect(c).to.include({ pipelineLingerMs: 1_000, pipelineBatch: 5_000, lagSampleMs: 1_000 });
  });

  it('keeps raw events on the bus 24 h unless told otherwise (issue 43)', () => {
    expect(loadConfig({}).busRetentionMs).to.equal(24 * 3_600_000);
    expect(loadConfig({ SPOOR_BUS_RETENTION_HOURS: '6' }).busRetentionMs).to.equal(6 * 3_600_000);
  });

  it('reads lag every 5 s on Kafka unless told otherwise (issue 41: each reading asks the broker)', () => {
    expect(loadConfig({ SPOOR_KAFKA_BROKERS: 'a:9092' }).lagSampleMs).to.equal(5_000);
    expect(loadConfig({ SPOOR_KAFKA_BROKERS: 'a:9092', SPOOR_LAG_SAMPLE_MS: '250' }).lagSampleMs).to.equal(250);
    expect(loadConfig({ SPOOR_LAG_SAMPLE_MS: '250' }).lagSampleMs).to.equal(250);
  });

  it('reads SPOOR_ADMIN_EMAILS as a lowercased comma list without blanks or repeats', () => {
    expect(
      loadConfig({ SPOOR_ADMIN_EMAILS: ' Ops@Example.com, ,root@example.org,ops@example.com ' }).adminEmails,
    ).to.deep.equal(['ops@example.com', 'root@example.org']);
    expect(loadConfig({ SPOOR_ADMIN_EMAILS: '  ' }).adminEmails).to.deep.equal([]);
  });

  it('reads every setting it is given', () => {
    const c = loadConfig({
      SPOOR_SERVICES: 'enricher, sessionizer',
      SPOOR_PORT: '9000',
      SPOOR_KAFKA_BROKERS: 'a:9092,b:9093',
      SPOOR_CLICKHOUSE_URL: 'http://ch:8123',
      SPOOR_REDIS_URL: 'redis://r:6379',
      SPOOR_IP_MODE: 'hash',
      SPOOR_TRUST_PROXY: '2',
      SPOOR_DNS_SERVER: '127.0.0.1:5353',
      SPOOR_KAFKA_PARTITIONS: '12',
      SPOOR_KAFKA_REPLICATION_FACTOR: '3',
      SPOOR_HEALTH_HTTP: 'true',
      SPOOR_HEAP_GROWING_PERCENT: '0',
      SPOOR_DUCKDB_KEY_WINDOW: '2000000',
      SPOOR_DUCKDB_THREADS: '4',
      SPOOR_PIPELINE_LINGER_MS: '0',
      SPOOR_PIPELINE_BATCH: '500',
    });
    expect(c).to.include({ pipelineLingerMs: 0, pipelineBatch: 500 });
    expect(c).to.include({ kafkaPartitions: 12, kafkaReplicationFactor: 3, healthHttp: true, heapGrowingPercent: 0 });
    expect(c.duckdbKeyWindow).to.equal(2_000_000);
    expect(c.duckdbThreads).to.equal(4);
    expect(c.services).to.deep.equal(['enricher', 'sessionizer']);
    expect(c.kafkaBrokers).to.deep.equal(['a:9092', 'b:9093']);
    expect(c).to.include({
      port: 9000,
      clickhouseUrl: 'http://ch:8123',
      redisUrl: 'redis://r:6379',
      ipMode: 'hash',
      trustProxy: 2,
      dnsServer: '127.0.0.1:5353',
    });
  });

  const bad: Array<[string, string]> = [
    ['SPOOR_PORT', 'eighty'],
    ['SPOOR_DUCKDB_THREADS', '0'],
    ['SPOOR_PORT', '70000'],
    ['SPOOR_SERVICES', 'ingest,teleporter'],
    ['SPOOR_IP_MODE', 'scramble'],
    ['SPOOR_KAFKA_BROKERS', 'not a broker'],
    ['SPOOR_CLICKHOUSE_URL', 'ftp://x'],
    ['SPOOR_REDIS_URL', 'http://not-redis'],
    ['SPOOR_DNS_SERVER', '127.0.0.1'],
    ['SPOOR_DNS_SERVER', 'dns.example:53'],
    ['SPOOR_UNSAFE_ACK_BEFORE_WRITE', 'maybe'],
    ['SPOOR_KAFKA_PARTITIONS', '0'],
    ['SPOOR_KAFKA_PARTITIONS', 'twelve'],
    ['SPOOR_KAFKA_REPLICATION_FACTOR', '-1'],
    ['SPOOR_HEALTH_HTTP', 'sometimes'],
    ['SPOOR_HEAP_GROWING_PERCENT', '-5'],
    ['SPOOR_HEAP_GROWING_PERCENT', '1.5x'],
    ['SPOOR_HEAP_GROWING_PERCENT', '5000'],
    ['SPOOR_DUCKDB_KEY_WINDOW', '10'],
    ['SPOOR_DUCKDB_KEY_WINDOW', '1e6'],
    ['SPOOR_PIPELINE_LINGER_MS', '60000'],
    ['SPOOR_PIPELINE_BATCH', '10'],
    ['SPOOR_LAG_SAMPLE_MS', '5'],
    ['SPOOR_BUS_RETENTION_HOURS', '0'],
    ['SPOOR_BUS_RETENTION_HOURS', '1.5'],
    ['SPOOR_ADMIN_EMAILS', 'ops@example.com,not-an-email'],
    ['SPOOR_ADMIN_EMAILS', 'ops@example.com;root@example.com'],
  ];
  for (const [variable, value] of bad) {
    it(`stops on ${variable}=${value}, naming the variable`, () => {
      expect(() => loadConfig({ [variable]: value }))
        .to.throw(ConfigError)
        .with.property('message')
        .that.contains(variable);
    });
  }

  // Issue 13: a configuration error names the variable but never prints a secret.
  const secrets: Array<[string, string, string]> = [
    ['SPOOR_SMTP_URL', 'smtp://user:S3cretPassw0rd@mail.example:99999', 'S3cretPassw0rd'],
    ['SPOOR_SMTP_URL', 'ftp://mailer:hunter2hunter2@mail.example', 'hunter2hunter2'],
    ['SPOOR_REDIS_URL', 'http://:r3d1sPa55@redis.example:6379', 'r3d1sPa55'],
    ['SPOOR_CLICKHOUSE_URL', 'ftp://default:chPassw0rd!@ch.example:8123/?password=inQuery123', 'chPassw0rd!'],
    ['SPOOR_CLICKHOUSE_URL', 'ftp://ch.example:8123/?password=inQuery123', 'inQuery123'],
    [
      'SPOOR_KAFKA_BROKERS',
      'sk_live_0123456789abcdefghijklmnopqrstuvwxyz',
      'sk_live_0123456789abcdefghijklmnopqrstuvwxyz',
    ],
  ];
  for (const [variable, value, secret] of secrets) {
    it(`never prints the secret in a bad ${variable}`, () => {
      let message = '';
      try {
        loadConfig({ [variable]: value });
      } catch (err) {
        message = (err as Error).message;
      }
      expect(message).to.contain(variable);
      expect(message).not.to.contain(secret);
    });
  }

  it('masks whole values of secret-named variables and keeps what helps to fix the rest', () => {
    expect(redactConfigValue('SPOOR_IP_SALT', 'pepper')).to.equal('***');
    expect(redactConfigValue('SPOOR_SMTP_URL', 'smtp://user:pw@mail.example:587')).to.equal(
      'smtp://user:***@mail.example:587',
    );
    expect(redactConfigValue('SPOOR_REDIS_URL', 'redis://token@r:6379')).to.equal('redis://***@r:6379');
    expect(redactConfigValue('SPOOR_PORT', 'eighty')).to.equal('eighty');
    expect(redactConfigValue('SPOOR_DNS_SERVER', 'dns.example:53')).to.equal('dns.example:53');
  });
});
