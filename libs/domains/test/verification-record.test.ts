import { expect } from 'chai';
import { newVerificationToken, verificationRecord } from '../src/index.js';

describe('verificationRecord', function () {
  const cases: Array<[origin: string, name: string]> = [
    ['https://acme.com', '_spoor.acme.com'],
    ['https://acme.com:8443', '_spoor.acme.com'],
    ['http://Shop.ACME.com:80', '_spoor.shop.acme.com'],
    ['https://acme.com/some/path?q=1', '_spoor.acme.com'],
    ['https://acme.com.', '_spoor.acme.com'],
    // IDNs: the zone holds the punycode (A-label) form.
    ['https://bücher.example', '_spoor.xn--bcher-kva.example'],
    ['https://BÜCHER.example:8080', '_spoor.xn--bcher-kva.example'],
    ['https://münchen.de:8080', '_spoor.xn--mnchen-3ya.de'],
    ['https://日本.jp', '_spoor.xn--wgv71a.jp'],
    ['https://xn--bcher-kva.example', '_spoor.xn--bcher-kva.example'],
  ];
  for (const [origin, name] of cases) {
    it(`names ${name} for ${origin}`, function () {
      expect(verificationRecord(origin, 'tok')).to.deep.equal({ type: 'TXT', name, value: 'spoor-verify=tok' });
    });
  }

  it('throws a TypeError for something that is not an origin', function () {
    expect(() => verificationRecord('acme.com', 'tok')).to.throw(TypeError);
    expect(() => verificationRecord('', 'tok')).to.throw(TypeError);
  });
});

describe('newVerificationToken', function () {
  it('is 128 random bits in URL-safe base64, different every time', function () {
    const tokens = Array.from({ length: 1000 }, () => newVerificationToken());
    for (const t of tokens) expect(t).to.match(/^[A-Za-z0-9_-]{22}$/);
    expect(Buffer.from(tokens[0]!, 'base64url')).to.have.length(16);
    expect(new Set(tokens).size).to.equal(tokens.length);
  });
});
