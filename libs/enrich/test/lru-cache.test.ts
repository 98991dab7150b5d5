/// <reference types="mocha" />
import { expect } from 'chai';
import { LruCache } from '../src/lru-cache.js';

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

  for (const bad of [0, -1, 1.5, Number.NaN]) {
    it(`refuses capacity ${bad}`, () => {
      expect(() => new LruCache(bad)).to.throw(RangeError);
    });
  }
});
