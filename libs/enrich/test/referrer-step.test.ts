/// <reference types="mocha" />
import { expect } from 'chai';
import { normaliseReferrer } from '../src/referrer-step.js';

const PAGE = 'https://acme.com/pricing';
const ORIGIN = 'https://acme.com';

describe('referrer-step', () => {
  const cases: Array<[string, string | null, string | null, string | null]> = [
    // [label, referrer, page url, expected]
    [
      'external site kept in full',
      'https://www.google.com/search?q=acme',
      PAGE,
      'https://www.google.com/search?q=acme',
    ],
    ['android app kept', 'android-app://com.google.android.gm/', PAGE, 'android-app://com.google.android.gm/'],
    ['self-referral dropped', 'https://acme.com/', PAGE, null],
    ['self-referral over http dropped', 'http://acme.com/blog', PAGE, null],
    ['self-referral on another port dropped', 'https://acme.com:8443/x', PAGE, null],
    ['self-referral in another case dropped', 'https://ACME.com/x', PAGE, null],
    ['subdomain kept', 'https://blog.acme.com/post', PAGE, 'https://blog.acme.com/post'],
    ['origin stands in without a page url', 'https://acme.com/x', null, null],
    ['external kept without a page url', 'https://news.ycombinator.com/', null, 'https://news.ycombinator.com/'],
    ['empty', '', PAGE, null],
    ['blank', '   ', PAGE, null],
    ['null', null, PAGE, null],
    ['relative', '/pricing', PAGE, null],
    ['not a url', 'google', PAGE, null],
    ['percent garbage', '%%%', PAGE, null],
    ['javascript scheme', 'javascript:alert(1)', PAGE, null],
    ['data scheme', 'data:text/plain,hi', PAGE, null],
    ['about:blank', 'about:blank', PAGE, null],
    ['file scheme', 'file:///etc/passwd', PAGE, null],
  ];
  for (const [label, referrer, page, expected] of cases) {
    it(label, () => expect(normaliseReferrer(referrer, page, ORIGIN)).to.equal(expected));
  }
});
