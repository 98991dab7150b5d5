/// <reference types="mocha" />
import { expect } from 'chai';
import { deriveSessionKey } from '../src/session-key-step.js';

const UA = 'Mozilla/5.0 (X11; Linux x86_64) Firefox/121.0';

describe('session-key-step', () => {
  const key = deriveSessionKey('p1', '203.0.113.7', UA, 'salt');

  it('is short hex and stable', () => {
    expect(key).to.match(/^[0-9a-f]{32}$/);
    expect(deriveSessionKey('p1', '203.0.113.7', UA, 'salt')).to.equal(key);
  });

  const differing: Array<[string, string, string, string, string]> = [
    ['another project', 'p2', '203.0.113.7', UA, 'salt'],
    ['another address in the same /24', 'p1', '203.0.113.8', UA, 'salt'],
    ['another user agent', 'p1', '203.0.113.7', `${UA} x`, 'salt'],
    ['another salt', 'p1', '203.0.113.7', UA, 'pepper'],
  ];
  for (const [label, project, ip, ua, salt] of differing) {
    it(`changes with ${label}`, () => expect(deriveSessionKey(project, ip, ua, salt)).not.to.equal(key));
  }

  it('treats a mapped IPv6 address as its IPv4 form', () => {
    expect(deriveSessionKey('p1', '::ffff:203.0.113.7', UA, 'salt')).to.equal(key);
  });

  it('cannot be confused by separators inside fields', () => {
    expect(deriveSessionKey('a', 'b\u0000c', '', 's')).not.to.equal(deriveSessionKey('a\u0000b', 'c', '', 's'));
    expect(deriveSessionKey('a","b', '', '', 's')).not.to.equal(deriveSessionKey('a', 'b', '', 's'));
  });

  it('still answers for an empty or invalid address', () => {
    expect(deriveSessionKey('p1', '', UA, 'salt')).to.match(/^[0-9a-f]{32}$/);
    expect(deriveSessionKey('p1', 'garbage', UA, 'salt')).not.to.equal(deriveSessionKey('p1', '', UA, 'salt'));
  });
});
