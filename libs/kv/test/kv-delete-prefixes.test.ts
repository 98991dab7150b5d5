// Kv.deletePrefixes on memory and on a real Redis (issue 17: deleting a project leaves no key of it).
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { redisUrl, requireEngine } from '@spoor/testkit';
import { MemoryKv, RedisKv, type Kv } from '../src/index.js';

const implementations: Array<{ name: string; open(ctx: Mocha.Context, prefix: string): Promise<Kv> }> = [
  { name: 'memory', open: async () => new MemoryKv() },
  {
    name: 'redis',
    async open(ctx, prefix) {
      const url = await redisUrl();
      requireEngine(ctx, url, 'redis');
      return RedisKv.connect(url, prefix);
    },
  },
];

for (const impl of implementations) {
  describe(`Kv.deletePrefixes: ${impl.name}`, function () {
    this.timeout(30_000);
    const opened: Kv[] = [];
    afterEach(async () => {
      await Promise.all(opened.splice(0).map((kv) => kv.close()));
    });

    it("deletes the keys under each prefix, and nothing else, nor another deployment's", async function () {
      const ns = `test:${randomUUID().slice(0, 8)}:`;
      const kv = await impl.open(this, ns);
      const neighbour = await impl.open(this, `${ns}n:`);
      opened.push(kv, neighbour);
      const keys = [
        'ss:p1:a',
        'ss:p1:b',
        'sid:p1:x',
        'dedup:p1:e1',
        'rules:stamp:p1',
        'ss:p10:a',
        'ss:p2:a',
        'dedup:p1*:e',
        'x:ss:p1:a',
      ];
      await kv.mset(keys.map((key) => ({ key, value: '1', ttlMs: 60_000 })));
      for (let i = 0; i < 2500; i++) await kv.set(`ss:p1:many-${i}`, '1', 60_000);
      await neighbour.set('ss:p1:a', 'theirs', 60_000);
      const n = await kv.deletePrefixes(['ss:p1:', 'sid:p1:', 'dedup:p1:', 'rules:stamp:p1']);
      expect(n).to.equal(2505);
      expect(await kv.mget(keys)).to.deep.equal([null, null, null, null, null, '1', '1', '1', '1']);
      expect(await kv.get('ss:p1:many-2499')).to.equal(null);
      if (impl.name === 'redis') expect(await neighbour.get('ss:p1:a')).to.equal('theirs');
      expect(await kv.deletePrefixes(['ss:p1:'])).to.equal(0);
    });
  });
}
