/// <reference types="mocha" />
import { expect } from 'chai';
import { normalizeOrigin, rememberedOrigins } from '../src/origin.js';

describe('normalizeOrigin', () => {
  const cases: Array<[string, string | null]> = [
    ['https://Example.COM:443/', 'https://example.com'],
    ['  http://shop.example:8080/cart?x=1 ', 'http://shop.example:8080'],
    ['https://xn--bcher-kva.example', 'https://xn--bcher-kva.example'],
    ['https://bücher.example', 'https://xn--bcher-kva.example'],
    ['ftp://files.example', null],
    ['not an origin', null],
    ['', null],
  ];

  it('gives the RFC 6454 serialisation, or null for what is not an http(s) origin', () => {
    for (const [input, expected] of cases) expect(normalizeOrigin(input), input).to.equal(expected);
  });

  it('answers the same from its memory of past inputs, and after that memory filled and started afresh', () => {
    const first = cases.map(([input]) => normalizeOrigin(input));
    for (let i = 0; i < 5_000; i++) {
      expect(normalizeOrigin(`https://site-${i}.example:443/`)).to.equal(`https://site-${i}.example`);
      expect(rememberedOrigins()).to.be.at.most(1_024);
    }
    expect(rememberedOrigins()).to.be.above(0);
    expect(cases.map(([input]) => normalizeOrigin(input))).to.deep.equal(first);
    expect(first).to.deep.equal(cases.map(([, expected]) => expected));
  });
});
