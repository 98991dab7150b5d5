import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { redisUrl, requireEngine } from '@spoor/testkit';
import { MemoryKv, RedisKv, type Kv } from '../src/index.js';

const implementations: Array<{ name: string; open(ctx: Mocha.Context): Promise<Kv> }> = [
  { name: 'memory', open: async () => new MemoryKv() },
  {
    name: 'redis',
    async open(ctx) {
      const url = await redisUrl();
      requireEngine(ctx, url, 'redis');
      return RedisKv.connect(url, `test:${randomUUID().slice(0, 8)}:`);
    },
  },
];

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

for (const impl of implementations) {
  describe(`Kv contract: ${impl.name}`, function () {
    this.timeout(30_000);
    let kv: Kv;
    beforeEach(async function () {
      kv = await impl.open(this);
    });
    afterEach(async () => kv?.close());

    it('sets, gets and deletes', async () => {
      expect(await kv.get('a')).to.equal(null);
      await kv.set('a', 'é"\n');
      expect(await kv.get('a')).to.equal('é"\n');
      await kv.del('a');
      expect(await kv.get('a')).to.equal(null);
    });

    it('expires keys after their TTL', async () => {
      await kv.set('short', '1', 60);
      await kv.mset([
        { key: 'm1', value: 'x', ttlMs: 60 },
        { key: 'm2', value: 'y' },
      ]);
      expect(await kv.mget(['short', 'm1', 'm2', 'none'])).to.deep.equal(['1', 'x', 'y', null]);
      await pause(150);
      expect(await kv.mget(['short', 'm1', 'm2'])).to.deep.equal([null, null, 'y']);
    });

    it('sets only when absent', async () => {
      expect(await kv.setIfAbsent('once', 'first', 10_000)).to.equal(true);
      expect(await kv.setIfAbsent('once', 'second', 10_000)).to.equal(false);
      expect(await kv.get('once')).to.equal('first');
    });

    it('increments atomically, with a TTL from creation', async () => {
      const results = await Promise.all(Array.from({ length: 50 }, () => kv.incr('n', 2, 100)));
      expect(Math.max(...results)).to.equal(100);
      expect(new Set(results).size).to.equal(50);
      await pause(200);
      expect(await kv.get('n')).to.equal(null);
    });

    it('answers mget of nothing', async () => {
      expect(await kv.mget([])).to.deep.equal([]);
    });
  });
}
