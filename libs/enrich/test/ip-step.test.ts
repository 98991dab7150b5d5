/// <reference types="mocha" />
import { expect } from 'chai';
import { applyIpMode, formatIpv6, hashIp, ipv6Groups, normaliseIp, truncateIp } from '../src/ip-step.js';

describe('ip-step', () => {
  describe('normaliseIp', () => {
    const cases: Array<[string, string | null]> = [
      ['203.0.113.7', '203.0.113.7'],
      ['  203.0.113.7 ', '203.0.113.7'],
      ['0.0.0.0', '0.0.0.0'],
      ['::ffff:1.2.3.4', '1.2.3.4'],
      ['::FFFF:1.2.3.4', '1.2.3.4'],
      ['::ffff:0102:0304', '1.2.3.4'],
      ['0:0:0:0:0:ffff:102:304', '1.2.3.4'],
      ['2001:db8::1', '2001:db8::1'],
      ['fe80::1%eth0', 'fe80::1'],
      ['fe80::1%25en0', 'fe80::1'],
      ['::1', '::1'],
      ['64:ff9b::1.2.3.4', '64:ff9b::1.2.3.4'],
      ['', null],
      ['   ', null],
      ['localhost', null],
      ['not an ip', null],
      ['999.1.1.1', null],
      ['1.2.3', null],
      ['01.2.3.4', null],
      ['[::1]', null],
      ['1.2.3.4:8080', null],
      ['2001:db8::g', null],
      ['%eth0', null],
    ];
    for (const [input, expected] of cases) {
      it(`${JSON.stringify(input)} -> ${JSON.stringify(expected)}`, () => {
        expect(normaliseIp(input)).to.equal(expected);
      });
    }
  });

  describe('IPv6 groups and canonical form (RFC 5952)', () => {
    const cases: Array<[string, string]> = [
      ['2001:0db8:0000:0000:0000:0000:0000:0001', '2001:db8::1'],
      ['2001:DB8:0:0:1:0:0:1', '2001:db8::1:0:0:1'],
      ['2001:db8:0:1:1:1:1:1', '2001:db8:0:1:1:1:1:1'],
      ['::', '::'],
      ['::1', '::1'],
      ['1::', '1::'],
      ['::ffff:1.2.3.4', '::ffff:102:304'],
    ];
    for (const [input, expected] of cases) {
      it(`${input} -> ${expected}`, () => {
        const groups = ipv6Groups(input);
        expect(groups).to.have.length(8);
        expect(formatIpv6(groups)).to.equal(expected);
      });
    }
  });

  describe('truncateIp', () => {
    const cases: Array<[string, string]> = [
      ['203.0.113.77', '203.0.113.0'],
      ['0.0.0.0', '0.0.0.0'],
      ['2001:db8:85a3:8d3:1319:8a2e:370:7348', '2001:db8:85a3::'],
      ['2001:db8:0:ffff::1', '2001:db8::'],
      ['::1', '::'],
      ['fe80::1', 'fe80::'],
    ];
    for (const [input, expected] of cases) {
      it(`${input} -> ${expected}`, () => expect(truncateIp(input)).to.equal(expected));
    }
  });

  describe('hashIp', () => {
    it('is 32 hex characters, stable, and depends on the salt', () => {
      const a = hashIp('203.0.113.7', 'salt-1');
      expect(a).to.match(/^[0-9a-f]{32}$/);
      expect(hashIp('203.0.113.7', 'salt-1')).to.equal(a);
      expect(hashIp('203.0.113.7', 'salt-2')).not.to.equal(a);
      expect(hashIp('203.0.113.8', 'salt-1')).not.to.equal(a);
    });

    it('hashes spellings of one IPv6 address alike', () => {
      expect(hashIp('2001:DB8:0::1', 's')).to.equal(hashIp('2001:db8::1', 's'));
    });
  });

  describe('applyIpMode', () => {
    const cases: Array<[string, 'full' | 'truncate' | 'hash', string | RegExp]> = [
      ['203.0.113.7', 'full', '203.0.113.7'],
      ['203.0.113.7', 'truncate', '203.0.113.0'],
      ['203.0.113.7', 'hash', /^[0-9a-f]{32}$/],
      ['::ffff:203.0.113.7', 'full', '203.0.113.7'],
      ['::ffff:203.0.113.7', 'truncate', '203.0.113.0'],
      ['fe80::1%eth0', 'full', 'fe80::1'],
      ['2001:db8:1234:5678::1', 'truncate', '2001:db8:1234::'],
      ['', 'full', ''],
      ['', 'truncate', ''],
      ['', 'hash', ''],
      ['garbage', 'hash', ''],
      ['unknown', 'truncate', ''],
      ['0.0.0.0', 'truncate', '0.0.0.0'],
    ];
    for (const [input, mode, expected] of cases) {
      it(`${mode} ${JSON.stringify(input)}`, () => {
        const out = applyIpMode(input, mode, 'salt');
        if (expected instanceof RegExp) expect(out).to.match(expected);
        else expect(out).to.equal(expected);
      });
    }

    it('hashes a mapped address like its IPv4 form', () => {
      expect(applyIpMode('::ffff:203.0.113.7', 'hash', 's')).to.equal(applyIpMode('203.0.113.7', 'hash', 's'));
    });
  });
});
