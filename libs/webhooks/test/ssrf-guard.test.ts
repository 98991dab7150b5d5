import { expect } from 'chai';
import { checkWebhookUrl, isBlockedAddress } from '../src/index.js';

describe('SSRF guard', function () {
  const blocked = [
    '127.0.0.1',
    '127.255.255.254',
    '10.0.0.1',
    '172.16.0.1',
    '172.31.255.255',
    '192.168.1.1',
    '169.254.169.254',
    '0.0.0.0',
    '100.64.0.1',
    '224.0.0.1',
    '255.255.255.255',
    '::',
    '::1',
    '::ffff:127.0.0.1',
    '::ffff:7f00:1',
    '::ffff:10.1.2.3',
    '64:ff9b::7f00:1',
    'fc00::1',
    'fd12:3456::1',
    'fe80::1',
    'fe80::1%eth0',
    'ff02::1',
    '[::1]',
    'not-an-ip',
    // Issue 13: every IPv6 form that embeds an IPv4 address is judged by the embedded address.
    '::ffff:0:127.0.0.1',
    '::ffff:0:7f00:1',
    '::ffff:0:10.0.0.1', // IPv4-translated (SIIT)
    '2002:7f00:1::',
    '2002:a00:1::1',
    '2002:c0a8:101::', // 6to4 of 127.0.0.1, 10.0.0.1, 192.168.1.1
    '64:ff9b:1::7f00:1',
    '64:ff9b:1:abcd::1', // local-use NAT64: the operator's own space
    '2001:0:4136:e378:8000:63bf:80ff:fffe', // Teredo whose client is 127.0.0.1 (inverted in the last 32 bits)
    'fe80::5efe:10.0.0.1',
    '2001:db8::200:5efe:c0a8:101', // ISATAP around private addresses
    '::127.0.0.1',
    '::10.0.0.1', // IPv4-compatible (deprecated)
  ];
  const allowed = [
    '93.184.216.34',
    '8.8.8.8',
    '172.32.0.1',
    '192.169.0.1',
    '2001:4860:4860::8888',
    '::ffff:8.8.8.8',
    '64:ff9b::808:808',
    '::ffff:0:8.8.8.8',
    '2002:808:808::1',
    '2001:0:4136:e378:8000:63bf:f7f7:f7f7',
  ];

  for (const ip of blocked) it(`blocks ${ip}`, () => expect(isBlockedAddress(ip)).to.equal(true));
  for (const ip of allowed) it(`allows ${ip}`, () => expect(isBlockedAddress(ip)).to.equal(false));

  const refusedUrls = [
    'http://127.0.0.1/',
    'http://10.0.0.1/',
    'http://172.16.0.1/',
    'http://192.168.1.1/',
    'http://169.254.169.254/latest/meta-data/',
    'http://0.0.0.0/',
    'http://[::1]/',
    'http://[::ffff:127.0.0.1]/',
    'http://[fc00::1]/',
    'http://2130706433/',
    'http://0x7f000001/',
    'http://017700000001/',
    'http://0x7f.1/',
    'http://127.1/',
    'http://[::ffff:0:127.0.0.1]:1234/',
    'http://[2002:7f00:1::]/',
    'http://[64:ff9b:1::a00:1]/',
  ];
  for (const url of refusedUrls) {
    it(`refuses ${url} (numeric spellings included)`, async () => {
      const v = await checkWebhookUrl(url, {
        allowPrivate: false,
        lookup: async () => {
          throw new Error('no DNS for literals');
        },
      });
      expect(v.ok).to.equal(false);
      if (!v.ok) expect(v.reason).to.match(/not a public address/);
    });
  }

  it('refuses a name that resolves to any private address, and one that does not resolve', async () => {
    const mixed = await checkWebhookUrl('https://hooks.example.com/x', {
      allowPrivate: false,
      lookup: async () => ['93.184.216.34', '10.0.0.7'],
    });
    expect(mixed).to.deep.include({ ok: false });
    const none = await checkWebhookUrl('https://nowhere.invalid/', {
      allowPrivate: false,
      lookup: async () => {
        throw Object.assign(new Error('nx'), { code: 'ENOTFOUND' });
      },
    });
    // One answer for both, naming no address: what a name resolves to would map internal DNS (issue 13).
    expect((mixed as { reason: string }).reason).to.equal((none as { reason: string }).reason);
    expect((mixed as { reason: string }).reason)
      .to.contain('not a public address')
      .and.not.contain('10.0.0.7');
    expect((none as { reason: string }).reason).not.to.contain('ENOTFOUND');
  });

  it('accepts public targets, and private ones when allowed', async () => {
    expect((await checkWebhookUrl('https://93.184.216.34/hook', { allowPrivate: false })).ok).to.equal(true);
    expect(
      (
        await checkWebhookUrl('https://hooks.example.com/x', {
          allowPrivate: false,
          lookup: async () => ['93.184.216.34'],
        })
      ).ok,
    ).to.equal(true);
    expect((await checkWebhookUrl('http://127.0.0.1:9/x', { allowPrivate: true })).ok).to.equal(true);
  });

  it('refuses other schemes, credentials and overlong URLs even when private targets are allowed', async () => {
    for (const url of [
      'ftp://93.184.216.34/',
      'file:///etc/passwd',
      'gopher://x/',
      'https://user:pw@93.184.216.34/',
      `https://93.184.216.34/${'a'.repeat(2100)}`,
      'not a url',
    ]) {
      expect((await checkWebhookUrl(url, { allowPrivate: true })).ok, url).to.equal(false);
    }
  });
});
