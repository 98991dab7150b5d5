import { expect } from 'chai';
import { checkWebhookUrl, isBlockedAddress } from '../src/index.js';

describe('SSRF guard', function () {
  const blocked = [
    '127.0.0.1', '127.255.255.254', '10.0.0.1', '172.16.0.1', '172.31.255.255', '192.168.1.1', '169.254.169.254', '0.0.0.0',
    '100.64.0.1', '224.0.0.1', '255.255.255.255', '::', '::1', '::ffff:127.0.0.1', '::ffff:7f00:1', '::ffff:10.1.2.3',
    '64:ff9b::7f00:1', 'fc00::1', 'fd12:3456::1', 'fe80::1', 'fe80::1%eth0', 'ff02::1', '[::1]', 'not-an-ip',
  ];
  const allowed = ['93.184.216.34', '8.8.8.8', '172.32.0.1', '192.169.0.1', '2001:4860:4860::8888', '::ffff:8.8.8.8', '64:ff9b::808:808'];

  for (const ip of blocked) it(`blocks ${ip}`, () => expect(isBlockedAddress(ip)).to.equal(true));
  for (const ip of allowed) it(`allows ${ip}`, () => expect(isBlockedAddress(ip)).to.equal(false));

  const refusedUrls = [
    'http://127.0.0.1/', 'http://10.0.0.1/', 'http://172.16.0.1/', 'http://192.168.1.1/', 'http://169.254.169.254/latest/meta-data/',
    'http://0.0.0.0/', 'http://[::1]/', 'http://[::ffff:127.0.0.1]/', 'http://[fc00::1]/', 'http://2130706433/', 'http://0x7f000001/',
    'http://017700000001/', 'http://0x7f.1/', 'http://127.1/',
  ];
  for (const url of refusedUrls) {
    it(`refuses ${url} (numeric spellings included)`, async () => {
      const v = await checkWebhookUrl(url, { allowPrivate: false, lookup: async () => { throw new Error('no DNS for literals'); } });
      expect(v.ok).to.equal(false);
      if (!v.ok) expect(v.reason).to.match(/private|loopback|link-local/);
    });
  }

  it('refuses a name that resolves to any private address, and one that does not resolve', async () => {
    const mixed = await checkWebhookUrl('https://hooks.example.com/x', { allowPrivate: false, lookup: async () => ['93.184.216.34', '10.0.0.7'] });
    expect(mixed).to.deep.include({ ok: false });
    expect((mixed as { reason: string }).reason).to.contain('resolves to 10.0.0.7');
    const none = await checkWebhookUrl('https://nowhere.invalid/', { allowPrivate: false, lookup: async () => { throw Object.assign(new Error('nx'), { code: 'ENOTFOUND' }); } });
    expect((none as { reason: string }).reason).to.contain('does not resolve (ENOTFOUND)');
  });

  it('accepts public targets, and private ones when allowed', async () => {
    expect((await checkWebhookUrl('https://93.184.216.34/hook', { allowPrivate: false })).ok).to.equal(true);
    expect((await checkWebhookUrl('https://hooks.example.com/x', { allowPrivate: false, lookup: async () => ['93.184.216.34'] })).ok).to.equal(true);
    expect((await checkWebhookUrl('http://127.0.0.1:9/x', { allowPrivate: true })).ok).to.equal(true);
  });

  it('refuses other schemes, credentials and overlong URLs even when private targets are allowed', async () => {
    for (const url of ['ftp://93.184.216.34/', 'file:///etc/passwd', 'gopher://x/', 'https://user:pw@93.184.216.34/', `https://93.184.216.34/${'a'.repeat(2100)}`, 'not a url']) {
      expect((await checkWebhookUrl(url, { allowPrivate: true })).ok, url).to.equal(false);
    }
  });
});
