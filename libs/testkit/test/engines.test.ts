import { ClickHouseError, ClickHouseLogLevel, createClient, type ClickHouseClient } from '@clickhouse/client';
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { Kafka, logLevel } from 'kafkajs';
import { Redis } from 'ioredis';
import { clickhouseUrl, kafkaBrokers, makeTempDir, redisUrl, requireEngine, stopAllEngines } from '../src/index.js';

/** Every process below this one, read from /proc (what `ps --ppid` would list, recursively). */
function descendantPids(root = process.pid): number[] {
  const parentOf = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      parentOf.set(Number(entry), ppid);
    } catch {
      // the process ended while we looked
    }
  }
  const found: number[] = [];
  const queue = [root];
  while (queue.length > 0) {
    const parent = queue.shift();
    for (const [pid, ppid] of parentOf) {
      if (ppid === parent) {
        found.push(pid);
        queue.push(pid);
      }
    }
  }
  return found;
}

async function timed<T>(label: string, work: () => Promise<T>): Promise<T> {
  const started = Date.now();
  const result = await work();
  process.stderr.write(`      (${label}: ${Date.now() - started} ms)\n`);
  return result;
}

describe('testkit engines', function () {
  this.timeout(600_000); // a cold machine fetches Kafka jars and the chDB wheels first

  after(stopAllEngines);

  describe('kafka', function () {
    let brokers: string;

    before(async function () {
      const value = await timed('kafka start', kafkaBrokers);
      requireEngine(this, value, 'kafka');
      brokers = value;
    });

    it('shares one start between concurrent callers', async function () {
      const [a, b] = await Promise.all([kafkaBrokers(), kafkaBrokers()]);
      expect(a).to.equal(brokers);
      expect(b).to.equal(brokers);
    });

    it('delivers a produced message to a consumer on an auto-created topic', async function () {
      const kafka = new Kafka({ clientId: 'testkit-test', brokers: brokers.split(','), logLevel: logLevel.NOTHING });
      const topic = `testkit-${randomUUID()}`;
      const producer = kafka.producer({ allowAutoTopicCreation: true });
      const consumer = kafka.consumer({ groupId: `testkit-${randomUUID()}` });
      try {
        await producer.connect();
        await producer.send({ topic, messages: [{ key: 'k1', value: 'hello engines' }] });
        await consumer.connect();
        await consumer.subscribe({ topic, fromBeginning: true });
        const received = await new Promise<{ key: string; value: string }>((resolve, reject) => {
          const timer = setTimeout(() => reject(new Error('no message within 30 s')), 30_000);
          void consumer.run({
            eachMessage: async ({ message }) => {
              clearTimeout(timer);
              resolve({ key: String(message.key), value: String(message.value) });
            },
          });
        });
        expect(received).to.deep.equal({ key: 'k1', value: 'hello engines' });
        const admin = kafka.admin();
        await admin.connect();
        const [metadata] = (await admin.fetchTopicMetadata({ topics: [topic] })).topics;
        await admin.disconnect();
        expect(metadata?.partitions).to.have.length(4); // num.partitions=4
      } finally {
        await consumer.disconnect();
        await producer.disconnect();
      }
    });
  });

  describe('clickhouse', function () {
    const db = `testkit_${randomUUID().replaceAll('-', '')}`;
    let url: string;
    let client: ClickHouseClient;
    // The client logs every failed request at ERROR; the failures here are on purpose.
    const quiet = { log: { level: ClickHouseLogLevel.OFF } };

    before(async function () {
      const value = await timed('clickhouse start', clickhouseUrl);
      requireEngine(this, value, 'clickhouse');
      url = value;
      client = createClient({ url, compression: { request: false, response: false }, ...quiet });
    });

    after(async function () {
      await client?.close();
    });

    it('answers ping and SELECT 1', async function () {
      expect((await client.ping()).success).to.equal(true);
      const rows = await (await client.query({ query: 'SELECT 1 AS one', format: 'JSONEachRow' })).json();
      expect(rows).to.deep.equal([{ one: 1 }]);
    });

    it('creates a ReplacingMergeTree table, inserts JSONEachRow and dedups with FINAL', async function () {
      await client.command({ query: `CREATE DATABASE IF NOT EXISTS ${db}` });
      await client.command({
        query: `CREATE TABLE ${db}.events (
          id String, ver UInt64, props Map(String, String), tags Array(String), note Nullable(String),
          ok Bool, delta Int64, at DateTime64(3, 'UTC')
        ) ENGINE = ReplacingMergeTree(ver) ORDER BY id`,
      });
      const rows = Array.from({ length: 500 }, (_, i) => ({
        id: `e${i}`,
        ver: 1,
        props: { page: `/p/${i}` },
        tags: ['a', 'b'],
        note: i % 2 ? null : `n${i}`,
        ok: i % 3 === 0,
        delta: -i,
        at: '2024-05-06 07:08:09.123',
      }));
      rows.push({ ...rows[0]!, ver: 2, note: 'updated', props: { page: '/changed' } });
      const summary = await client.insert({ table: `${db}.events`, values: rows, format: 'JSONEachRow' });
      expect(summary.executed).to.equal(true);

      const final = await client.query({
        query: `SELECT id, ver, props, tags, note, ok, delta, at FROM ${db}.events FINAL WHERE id IN ('e0', 'e1') ORDER BY id`,
        format: 'JSONEachRow',
      });
      expect(await final.json()).to.deep.equal([
        {
          id: 'e0',
          ver: 2,
          props: { page: '/changed' },
          tags: ['a', 'b'],
          note: 'updated',
          ok: true,
          delta: 0,
          at: '2024-05-06 07:08:09.123',
        },
        {
          id: 'e1',
          ver: 1,
          props: { page: '/p/1' },
          tags: ['a', 'b'],
          note: null,
          ok: false,
          delta: -1,
          at: '2024-05-06 07:08:09.123',
        },
      ]);
      const count = await client.query({ query: `SELECT count() AS n FROM ${db}.events FINAL`, format: 'JSON' });
      const json = await count.json<{ n: number }>();
      // Unquoted: output_format_json_quote_64bit_integers defaults to 0 since ClickHouse 25.8.
      expect(json.data).to.deep.equal([{ n: 500 }]);
      const compact = await client.query({
        query: `SELECT id, ver FROM ${db}.events FINAL WHERE id = 'e0'`,
        format: 'JSONCompactEachRow',
      });
      expect(await compact.json()).to.deep.equal([['e0', 2]]);
      const tsv = await client.query({
        query: `SELECT id, ver FROM ${db}.events FINAL WHERE id = 'e0'`,
        format: 'TabSeparated',
      });
      expect(await tsv.text()).to.equal('e0\t2\n');
    });

    it('binds {p:String} parameters as values, so quotes and backslashes cannot inject SQL', async function () {
      const hostile = `it's a "quote" \\ back\\slash'); DROP TABLE ${db}.events; --`;
      await client.insert({
        table: `${db}.events`,
        format: 'JSONEachRow',
        values: [{ id: 'hostile', ver: 1, note: hostile, at: '2024-01-01 00:00:00.000' }],
      });
      const result = await client.query({
        query: `SELECT id, note FROM ${db}.events FINAL WHERE note = {p:String}`,
        query_params: { p: hostile },
        format: 'JSONEachRow',
      });
      expect(await result.json()).to.deep.equal([{ id: 'hostile', note: hostile }]);
      const echoed = await client.query({
        query: 'SELECT {p:String} AS v, length({p:String}) AS n',
        query_params: { p: hostile },
        format: 'JSONEachRow',
      });
      expect(await echoed.json()).to.deep.equal([{ v: hostile, n: Buffer.byteLength(hostile) }]);
      const still = await client.query({ query: `EXISTS TABLE ${db}.events`, format: 'JSONEachRow' });
      expect(await still.json()).to.deep.equal([{ result: 1 }]);
    });

    it('carries long parameters in a multipart body and honours the database setting', async function () {
      const scoped = createClient({ url, database: db, compression: { request: false, response: false } });
      try {
        const long = 'x'.repeat(10_000);
        const result = await scoped.query({
          query: 'SELECT length({p:String}) AS n, currentDatabase() AS db, count() AS c FROM events FINAL',
          query_params: { p: long },
          use_multipart_params: true,
          format: 'JSONEachRow',
        });
        expect(await result.json()).to.deep.equal([{ n: 10_000, db, c: 501 }]);
      } finally {
        await scoped.close();
      }
    });

    it('handles gzip request and response bodies', async function () {
      const gzipClient = createClient({ url, compression: { request: true, response: true } });
      try {
        await gzipClient.insert({
          table: `${db}.events`,
          format: 'JSONEachRow',
          values: [{ id: 'gz', ver: 1, at: '2024-01-01 00:00:00.000' }],
        });
        const result = await gzipClient.query({
          query: `SELECT id FROM ${db}.events WHERE id = 'gz'`,
          format: 'JSONEachRow',
        });
        expect(await result.json()).to.deep.equal([{ id: 'gz' }]);
      } finally {
        await gzipClient.close();
      }
    });

    it('applies settings sent by the client for that request only', async function () {
      const quoted = await client.query({
        query: 'SELECT toUInt64(5) AS v',
        format: 'JSONEachRow',
        clickhouse_settings: { output_format_json_quote_64bit_integers: 1 },
      });
      expect(await quoted.json()).to.deep.equal([{ v: '5' }]);
      const next = await client.query({ query: 'SELECT toUInt64(5) AS v', format: 'JSONEachRow' });
      expect(await next.json()).to.deep.equal([{ v: 5 }]);
    });

    it('answers a query while another one is still running (a pool of chDB sessions, issue 15)', async function () {
      const finished: string[] = [];
      const slow = client
        .query({ query: 'SELECT sleep(1.5) AS s', format: 'JSONEachRow' })
        .then((r) => r.json())
        .then(() => finished.push('slow'));
      // Each on its own session: a setting of one is not seen by the others while they run.
      const quick = Promise.all(
        [1, 2, 3].map((i) =>
          client
            .query({
              query: "SELECT getSetting('max_threads') AS t",
              format: 'JSONEachRow',
              clickhouse_settings: { max_threads: i },
            })
            .then((r) => r.json<{ t: number }>())
            .then((rows) => {
              finished.push('quick');
              return Number(rows[0]!.t);
            }),
        ),
      );
      expect(await quick).to.deep.equal([1, 2, 3]);
      expect(finished).to.deep.equal(['quick', 'quick', 'quick']);
      await slow;
      expect(finished).to.deep.equal(['quick', 'quick', 'quick', 'slow']);
    });

    it('raises ClickHouseError with code 60 for an unknown table, and 62 for bad syntax', async function () {
      const unknown = await client.query({ query: `SELECT * FROM ${db}.nope` }).then(
        () => null,
        (error: unknown) => error,
      );
      expect(unknown).to.be.instanceOf(ClickHouseError);
      expect((unknown as ClickHouseError).code).to.equal('60');
      expect((unknown as ClickHouseError).type).to.equal('UNKNOWN_TABLE');
      const syntax = await client.command({ query: 'SELEC 1' }).then(
        () => null,
        (error: unknown) => error,
      );
      expect((syntax as ClickHouseError).code).to.equal('62');
    });
  });

  describe('redis', function () {
    let url: string;

    before(async function () {
      const value = await timed('redis start', redisUrl);
      requireEngine(this, value, 'redis');
      url = value;
    });

    it('stores and returns a value', async function () {
      const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1 });
      try {
        await redis.connect();
        await redis.set('testkit:key', 'value', 'EX', 60);
        expect(await redis.get('testkit:key')).to.equal('value');
      } finally {
        redis.disconnect();
      }
    });
  });

  describe('environment overrides', function () {
    it('returns SPOOR_REDIS_URL as given, without starting anything', async function () {
      await stopAllEngines();
      const before = descendantPids().length;
      process.env.SPOOR_REDIS_URL = 'redis://example.invalid:6379';
      try {
        expect(await redisUrl()).to.equal('redis://example.invalid:6379');
        expect(descendantPids()).to.have.length(before);
      } finally {
        delete process.env.SPOOR_REDIS_URL;
      }
    });
  });

  describe('stopAllEngines', function () {
    it('leaves no child process and no temp dir behind', async function () {
      const urls = await Promise.all([kafkaBrokers(), clickhouseUrl(), redisUrl()]);
      const dir = await makeTempDir('stop-check');
      const started = urls.filter((url) => url !== null).length;
      expect(descendantPids().length).to.be.at.least(started);
      await timed('stopAllEngines', stopAllEngines);
      expect(descendantPids()).to.deep.equal([]);
      expect(existsSync(dir)).to.equal(false);
    });
  });
});
