/// <reference types="mocha" />
import { expect } from 'chai';
import type { Utm } from '@spoor/schemas';
import { capText, MAX_QUERY_KEYS, MAX_QUERY_TEXT, parsePageUrl, type UrlFields } from '../src/url-step.js';

const ORIGIN = 'https://acme.com';
const NO_UTM: Utm = { source: null, medium: null, campaign: null, term: null, content: null };

describe('url-step', () => {
  describe('parsePageUrl', () => {
    const cases: Array<[string | null, Partial<UrlFields>]> = [
      [
        'https://acme.com/pricing?plan=pro#top',
        { url: 'https://acme.com/pricing?plan=pro#top', path: '/pricing', query: { plan: 'pro' } },
      ],
      ['https://acme.com', { path: '/', query: {} }],
      ['HTTP://ACME.com/A', { url: 'HTTP://ACME.com/A', path: '/A' }],
      ['/pricing?a=1', { url: 'https://acme.com/pricing?a=1', path: '/pricing', query: { a: '1' } }],
      ['//cdn.acme.com/x', { url: 'https://cdn.acme.com/x', path: '/x' }],
      ['https://acme.com/?a=1&a=2', { query: { a: '1' } }],
      ['https://acme.com/?a=&b', { query: { a: '', b: '' } }],
      ['https://acme.com/?q=%E2%9C%93&sp=a+b', { query: { q: '✓', sp: 'a b' } }],
      ['https://acme.com/%zz/%E0%A4%A?bad=%zz&worse=%', { path: '/%zz/%E0%A4%A', query: { bad: '%zz', worse: '%' } }],
      [
        'https://acme.com/?__proto__=x&constructor=y',
        { query: JSON.parse('{"__proto__":"x","constructor":"y"}') as Record<string, string> },
      ],
      ['https://acme.com/ü/日本?ключ=значение', { path: '/%C3%BC/%E6%97%A5%E6%9C%AC', query: { ключ: 'значение' } }],
      ['javascript:alert(document.cookie)', { url: null, path: null, query: {} }],
      ['JavaScript:alert(1)//https://acme.com/', { url: null, path: null }],
      ['data:text/html,<script>alert(1)</script>', { url: null, path: null }],
      ['mailto:a@acme.com', { url: null }],
      ['pricing', { url: null, path: null }],
      ['%%%', { url: null, path: null }],
      ['http://[::1', { url: null, path: null }],
      ['', { url: null, path: null, query: {}, utm: NO_UTM }],
      ['   ', { url: null }],
      [null, { url: null, path: null, query: {}, utm: NO_UTM }],
    ];
    for (const [input, expected] of cases) {
      it(JSON.stringify(input), () => {
        const fields = parsePageUrl(input, ORIGIN);
        for (const [key, value] of Object.entries(expected)) {
          expect(fields[key as keyof UrlFields], key).to.deep.equal(value);
        }
      });
    }

    it('keeps a __proto__ parameter as a plain own key', () => {
      const { query } = parsePageUrl('https://acme.com/?__proto__=x', ORIGIN);
      expect(Object.getPrototypeOf(query)).to.equal(Object.prototype);
      expect(Object.keys(query)).to.deep.equal(['__proto__']);
    });

    it('leaves a relative URL unresolved when the origin is unusable', () => {
      expect(parsePageUrl('/pricing', 'not an origin').url).to.equal(null);
    });
  });

  describe('query bounds', () => {
    it(`keeps at most ${MAX_QUERY_KEYS} keys, the first ones`, () => {
      const search = Array.from({ length: 80 }, (_, i) => `k${i}=${i}`).join('&');
      const { query } = parsePageUrl(`https://acme.com/?${search}`, ORIGIN);
      expect(Object.keys(query)).to.have.length(MAX_QUERY_KEYS);
      expect(query['k0']).to.equal('0');
      expect(query[`k${MAX_QUERY_KEYS}`]).to.equal(undefined);
    });

    it(`caps keys and values at ${MAX_QUERY_TEXT} characters`, () => {
      const { query } = parsePageUrl(`https://acme.com/?${'k'.repeat(1000)}=${'v'.repeat(1000)}`, ORIGIN);
      const [[key, value]] = Object.entries(query) as [[string, string]];
      expect(key).to.have.length(MAX_QUERY_TEXT);
      expect(value).to.have.length(MAX_QUERY_TEXT);
    });

    it('does not cut a surrogate pair in half', () => {
      const text = `${'a'.repeat(MAX_QUERY_TEXT - 1)}😀`;
      expect(capText(text)).to.equal('a'.repeat(MAX_QUERY_TEXT - 1));
      expect(capText('short')).to.equal('short');
    });
  });

  describe('utm', () => {
    const cases: Array<[string, Utm]> = [
      [
        'https://acme.com/?utm_source=news&utm_medium=email&utm_campaign=spring&utm_term=shoes&utm_content=hero',
        { source: 'news', medium: 'email', campaign: 'spring', term: 'shoes', content: 'hero' },
      ],
      ['https://acme.com/?utm_source=a&utm_source=b', { ...NO_UTM, source: 'a' }],
      ['https://acme.com/?utm_source=&utm_medium=cpc', { ...NO_UTM, medium: 'cpc' }],
      ['https://acme.com/?UTM_SOURCE=upper', NO_UTM],
      ['https://acme.com/?utm_campaign=%E2%9C%93+sale', { ...NO_UTM, campaign: '✓ sale' }],
      ['https://acme.com/', NO_UTM],
    ];
    for (const [url, expected] of cases) {
      it(url, () => expect(parsePageUrl(url, ORIGIN).utm).to.deep.equal(expected));
    }

    it('caps a utm value', () => {
      expect(parsePageUrl(`https://acme.com/?utm_source=${'s'.repeat(999)}`, ORIGIN).utm.source).to.have.length(
        MAX_QUERY_TEXT,
      );
    });
  });
});
