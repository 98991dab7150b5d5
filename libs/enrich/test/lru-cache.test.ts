/// <reference types="mocha" />
import { expect } from 'chai';
import { LruCache, MAX_MEMO_KEY_LENGTH, memoize } from '../src/lru-cache.js';

describe('LruCache', () => {
  it('evicts the least recently used entry when full', () => {
    const cache = new LruCache<string, number>(2);
    cache.set('a', 1);
    cache.set('b', 2);
    expect(cache.get('a')).to.equal(1); // a is now the most recent
    cache.set('c', 3);
    expect(cache.get('b')).to.equal(undefined);
    expect(cache.get('a')).to.equal(1);
    expect(cache.get('c')).to.equal(3);
    expect(cache.size).to.equal(2);
  });

  it('re-setting a key refreshes it without growing', () => {
    const cache = new LruCache<string, number>(2);
    cache.set('a', 1);
    cache.set('b', 2);
    cache.set('a', 10);
    cache.set('c', 3);
    expect(cache.size).to.equal(2);
    expect(cache.get('a')).to.equal(10);
    expect(cache.get('b')).to.equal(undefined);
  });

  it('evicts in least-recently-used order over many evictions, like a plain list would', () => {
    // A list of keys, least recent first, as the reference; the cache keeps its eviction cursor
    // between evictions (issue 14), so every eviction after the first is checked against it.
    const capacity = 50;
    const cache = new LruCache<number, number>(capacity);
    const order: number[] = [];
    let state = 7;
    const next = () => (state = (Math.imul(state, 1_103_515_245) + 12_345) >>> 0) % 200;
    for (let i = 0; i < 20_000; i++) {
      const key = next();
      const at = order.indexOf(key);
      if (i % 3 === 0) {
        expect(cache.get(key)).to.equal(at >= 0 ? key : undefined);
        if (at >= 0) order.push(...order.splice(at, 1));
      } else {
        cache.set(key, key);
        if (at >= 0) order.splice(at, 1);
        order.push(key);
        if (order.length > capacity) order.shift();
      }
      expect(cache.size).to.equal(order.length);
    }
    for (const key of order) expect(cache.get(key)).to.equal(key);
  });

  for (const bad of [0, -1, 1.5, Number.NaN]) {
    it(`refuses capacity ${bad}`, () => {
      expect(() => new LruCache(bad)).to.throw(RangeError);
    });
  }
});

describe('memoize', () => {
  it('computes each input once while remembered, and answers a frozen shared object', () => {
    let calls = 0;
    const parse = memoize(2, (url: string | null, origin: string) => ({ url, origin, n: ++calls, inner: { x: 1 } }));
    const a = parse('/a', 'o');
    expect(parse('/a', 'o')).to.equal(a);
    parse('/b', 'o');
    expect(parse('/a', 'o')).to.equal(a);
    expect(calls).to.equal(2);
    expect(Object.isFrozen(a) && Object.isFrozen(a.inner)).to.equal(true);
    parse('/c', 'o'); // evicts /b, the least recent
    parse('/b', 'o');
    expect(calls).to.equal(4);
  });

  it('keeps no key longer than MAX_MEMO_KEY_LENGTH, so junk input pins no memory', () => {
    let calls = 0;
    const key = memoize(10, (ua: string) => ({ n: ++calls, ua }));
    const junk = 'x'.repeat(MAX_MEMO_KEY_LENGTH + 1);
    key(junk);
    key('other'); // past the previous-call shortcut
    key(junk);
    expect(calls).to.equal(3);
    const fine = 'y'.repeat(MAX_MEMO_KEY_LENGTH);
    key(fine);
    key('other');
    key(fine);
    expect(calls).to.equal(4);
  });
});
