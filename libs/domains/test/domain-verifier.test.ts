// verifyDomain against a real DNS server (dnsmasq on loopback, started by @spoor/testkit).
import { createSocket, type Socket } from 'node:dgram';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { dnsServer, type DnsServer } from '@spoor/testkit';
import { verifyDomain } from '../src/index.js';

const TOKEN = 'Zm9vYmFyYmF6cXV4MTIzNA';

describe('verifyDomain', function () {
  let dns: DnsServer | null = null;

  before(async function () {
    dns = await dnsServer([
      { name: '_spoor.acme.example', value: `spoor-verify=${TOKEN}` },
      { name: '_spoor.wrong.example', value: 'spoor-verify=someone-elses-token' },
      { name: '_spoor.several.example', value: 'v=spf1 -all' },
      { name: '_spoor.several.example', value: 'spoor-verify=an-old-token' },
      { name: '_spoor.several.example', value: `spoor-verify=${TOKEN}` },
      { name: '_spoor.chunked.example', value: ['spoor-veri', `fy=${TOKEN.slice(0, 7)}`, TOKEN.slice(7)] },
      { name: '_spoor.xn--bcher-kva.example', value: `spoor-verify=${TOKEN}` },
    ]);
    if (dns === null) this.skip();
  });

  after(async function () {
    await dns?.stop();
  });

  const verify = (origin: string, token = TOKEN) =>
    verifyDomain({ origin, token, dnsServer: dns!.server, timeoutMs: 3_000 });

  it('verifies when the TXT record reads spoor-verify=<token>', async function () {
    expect(await verify('https://acme.example')).to.deep.equal({ verified: true });
    expect(await verify('http://acme.example:8080')).to.deep.equal({ verified: true });
  });

  it('does not verify a record with another token, or a token against another record', async function () {
    const wrong = await verify('https://wrong.example');
    expect(wrong.verified).to.equal(false);
    expect(wrong.reason).to.include('_spoor.wrong.example');
    expect((await verify('https://acme.example', 'not-the-token')).verified).to.equal(false);
    expect((await verify('https://acme.example', TOKEN.slice(0, -1))).verified).to.equal(false);
  });

  it('does not verify when the name has no record', async function () {
    expect(await verify('https://missing.example')).to.deep.equal({
      verified: false,
      reason: 'no TXT record at _spoor.missing.example',
    });
  });

  it('verifies when one of several TXT records matches', async function () {
    expect(await verify('https://several.example')).to.deep.equal({ verified: true });
    expect((await verify('https://several.example', 'an-old-tok')).verified).to.equal(false);
  });

  it('joins the chunks of a record split into character-strings', async function () {
    expect(await verify('https://chunked.example')).to.deep.equal({ verified: true });
  });

  it('looks IDN hosts up in punycode', async function () {
    expect(await verify('https://bücher.example:8443')).to.deep.equal({ verified: true });
  });

  it('counts localhost and loopback as verified without asking DNS', async function () {
    for (const origin of [
      'http://localhost:3000',
      'http://app.localhost',
      'http://127.0.0.1:8080',
      'http://[::1]:8080',
    ]) {
      expect(await verifyDomain({ origin, token: TOKEN, dnsServer: '127.0.0.1:9', timeoutMs: 50 })).to.deep.equal({
        verified: true,
        reason: 'loopback',
      });
    }
  });

  it('answers "not verified" for IP origins and non-origins', async function () {
    expect((await verify('https://203.0.113.7')).verified).to.equal(false);
    expect((await verify('https://[2001:db8::1]')).verified).to.equal(false);
    expect((await verify('not an origin')).verified).to.equal(false);
  });
});

describe('verifyDomain without an answer', function () {
  let silent: Socket;

  before(async function () {
    // A DNS "server" that reads every query and never answers.
    silent = createSocket('udp4');
    silent.on('message', () => undefined);
    await new Promise<void>((resolve) => silent.bind(0, '127.0.0.1', resolve));
  });

  after(function () {
    silent.close();
  });

  it('gives up with reason "timeout" within the timeout, without throwing', async function () {
    const { port } = silent.address() as AddressInfo;
    const began = Date.now();
    const result = await verifyDomain({
      origin: 'https://acme.example',
      token: TOKEN,
      dnsServer: `127.0.0.1:${port}`,
      timeoutMs: 400,
    });
    expect(result).to.deep.equal({ verified: false, reason: 'timeout' });
    expect(Date.now() - began).to.be.within(300, 1_000);
  });

  it('does not verify, within the timeout, when nothing listens on the port', async function () {
    const closed = createSocket('udp4');
    await new Promise<void>((resolve) => closed.bind(0, '127.0.0.1', resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const began = Date.now();
    const result = await verifyDomain({
      origin: 'https://acme.example',
      token: TOKEN,
      dnsServer: `127.0.0.1:${port}`,
      timeoutMs: 400,
    });
    expect(result.verified).to.equal(false);
    expect(result.reason).to.be.a('string');
    expect(Date.now() - began).to.be.below(1_000);
  });
});
