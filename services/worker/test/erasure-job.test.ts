import { expect } from 'chai';
import { applyIpMode } from '@spoor/enrich';
import { storedIpForms } from '../src/erasure-job.js';

/** An erasure by IP looks for the address in the forms the enricher may have stored it in. */
describe('storedIpForms', () => {
  const salt = 'erasure-test-salt';
  const cases: Array<[string, 'full' | 'truncate' | 'hash', string, string[]]> = [
    ['full: the address alone', 'full', '203.0.113.7', ['203.0.113.7']],
    ['truncate: the address and its /24', 'truncate', '203.0.113.7', ['203.0.113.7', '203.0.113.0']],
    ['truncate: an IPv6 address and its /48', 'truncate', '2001:db8:1:2::7', ['2001:db8:1:2::7', '2001:db8:1::']],
    [
      'hash: the address and its HMAC, as the enricher computes it',
      'hash',
      '203.0.113.7',
      ['203.0.113.7', applyIpMode('203.0.113.7', 'hash', salt)],
    ],
  ];
  for (const [name, mode, address, forms] of cases) {
    it(name, () => expect(storedIpForms(address, mode, salt)).to.deep.equal(forms));
  }

  it('hashes with the salt: another salt gives another form', () => {
    const other = storedIpForms('203.0.113.7', 'hash', 'other')[1];
    expect(other).to.match(/^[0-9a-f]{32}$/);
    expect(other).to.not.equal(storedIpForms('203.0.113.7', 'hash', salt)[1]);
  });
});
