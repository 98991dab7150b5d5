import { expect } from 'chai';
import type { RuleRecord } from '@spoor/schemas';
import { RulesCache } from '../src/index.js';
import { ruleRecord } from './fixtures.js';

describe('RulesCache', () => {
  it('reloads a project only when its stamp changes', async () => {
    const stored: RuleRecord[] = [];
    let loads = 0;
    const source = { list: async () => (loads++, stored.slice()) };
    const kv = new Map<string, string>();
    const stamps = {
      mget: async (keys: string[]) => keys.map((k) => kv.get(k) ?? null),
      incr: async (key: string) => {
        const n = Number(kv.get(key) ?? 0) + 1;
        kv.set(key, String(n));
        return n;
      },
    };
    const cache = new RulesCache(source, stamps, { clock: () => 0 });
    expect((await cache.forProjects(['p'])).get('p')!.classification).to.equal(0);
    await cache.forProjects(['p', 'p']);
    expect(loads).to.equal(1);
    stored.push(ruleRecord({ rule_id: 'r' }));
    await RulesCache.changed(stamps, 'p');
    const after = (await cache.forProjects(['p'])).get('p')!;
    expect(loads).to.equal(2);
    expect(after.set.classify({}).rule_ids).to.deep.equal(['r']);
  });
});
