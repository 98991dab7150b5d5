import { expect } from 'chai';
import { checkWebhookUrl, isBlockedAddress } from '../src/index.js';
import { IPV4_SPECIAL_REGISTRY, IPV6_SPECIAL_REGISTRY, OUTSIDE_UNICAST } from '../src/special-address-registry.js';

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
    // Issue 42: the registry's flags decide, so these forms are refused whole, whatever they embed:
    // ::ffff:0:0/96 (Globally Reachable False), the SIIT form (outside 2000::/3), 6to4 and Teredo (N/A).
    '::ffff:8.8.8.8',
    '::ffff:0:8.8.8.8',
    '2002:808:808::1',
    '2001:0:4136:e378:8000:63bf:f7f7:f7f7',
  ];
  const allowed = [
    '93.184.216.34',
    '8.8.8.8',
    '172.32.0.1',
    '192.169.0.1',
    '2001:4860:4860::8888',
    '64:ff9b::808:808', // NAT64 (reachable) of a public address
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
    'http://[2001:10::1]/', // ORCHID, ORCHIDv2 (issue 42)
    'http://[2001:20::1]/',
    'http://[2001:30::1]/',
    'http://[3fff::1]/',
    'http://[5f00::1]/',
    'http://192.88.99.1/',
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

  // Test servers listen on loopback: only SPOOR_WEBHOOK_ALLOW_PRIVATE (allowPrivate) lets a
  // target reach it, as before issue 42; the registry check itself never allows loopback.
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

/** The first and last address of a block, in full form (every group written, no `::`). */
function blockEnds(block: string): [string, string] {
  const [net, len] = block.split('/') as [string, string];
  const v4 = net.includes('.') && !net.includes(':');
  const width = v4 ? 32n : 128n;
  const value = v4 ? net.split('.').reduce((n, o) => (n << 8n) | BigInt(o), 0n) : v6Value(net);
  const host = (1n << (width - BigInt(len))) - 1n;
  const first = value & ~host & ((1n << width) - 1n);
  const show = (n: bigint) =>
    v4
      ? [24n, 16n, 8n, 0n].map((s) => String((n >> s) & 255n)).join('.')
      : [112n, 96n, 80n, 64n, 48n, 32n, 16n, 0n].map((s) => ((n >> s) & 0xffffn).toString(16)).join(':');
  return [show(first), show(first | host)];
}

function v6Value(ip: string): bigint {
  const [head, tail] = ip.split('::') as [string, string | undefined];
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const groups = tail === undefined ? left : [...left, ...Array(8 - left.length - right.length).fill('0'), ...right];
  return groups.reduce((n, g) => (n << 16n) | BigInt(parseInt(g, 16)), 0n);
}

// Issue 42: the IANA special-purpose registries, written out a second time, independently of the
// code's tables (which must list the same blocks): each block with the verdict its first and last
// addresses get. `refused` where Globally Reachable is False or N/A.
type Verdict = 'refused' | 'allowed';
const R: Verdict = 'refused';
const A: Verdict = 'allowed';
const REGISTRY: Array<[block: string, first: Verdict, last: Verdict, why?: string]> = [
  // iana-ipv4-special-registry
  ['0.0.0.0/8', R, R],
  ['0.0.0.0/32', R, R],
  ['10.0.0.0/8', R, R],
  ['100.64.0.0/10', R, R],
  ['127.0.0.0/8', R, R],
  ['169.254.0.0/16', R, R],
  ['172.16.0.0/12', R, R],
  ['192.0.0.0/24', R, R],
  ['192.0.0.0/29', R, R],
  ['192.0.0.8/32', R, R],
  ['192.0.0.9/32', A, A, 'PCP anycast: reachable'],
  ['192.0.0.10/32', A, A, 'TURN anycast: reachable'],
  ['192.0.0.170/32', R, R],
  ['192.0.0.171/32', R, R],
  ['192.0.2.0/24', R, R],
  ['192.31.196.0/24', A, A, 'AS112-v4: reachable'],
  ['192.52.193.0/24', A, A, 'AMT: reachable'],
  ['192.88.99.0/24', R, R, 'N/A'],
  ['192.88.99.2/32', R, R],
  ['192.168.0.0/16', R, R],
  ['192.175.48.0/24', A, A, 'AS112 direct delegation: reachable'],
  ['198.18.0.0/15', R, R],
  ['198.51.100.0/24', R, R],
  ['203.0.113.0/24', R, R],
  ['240.0.0.0/4', R, R],
  ['255.255.255.255/32', R, R],
  // iana-ipv6-special-registry
  ['::1/128', R, R],
  ['::/128', R, R],
  ['::ffff:0:0/96', R, R],
  ['64:ff9b::/96', R, R, 'reachable, but its ends embed 0.0.0.0 and 255.255.255.255, which are refused'],
  ['64:ff9b:1::/48', R, R],
  ['100::/64', R, R],
  ['100:0:0:1::/64', R, R],
  ['2001::/23', R, R],
  ['2001::/32', R, R, 'Teredo: N/A'],
  ['2001:1::1/128', A, A],
  ['2001:1::2/128', A, A],
  ['2001:1::3/128', A, A],
  ['2001:2::/48', R, R],
  ['2001:3::/32', A, A, 'AMT: reachable'],
  ['2001:4:112::/48', A, A, 'AS112-v6: reachable'],
  ['2001:10::/28', R, R, 'ORCHID, deprecated: N/A'],
  ['2001:20::/28', R, R, 'ORCHIDv2: the registry says reachable; an identifier, not a locator'],
  ['2001:30::/28', R, R, 'DETs (ORCHIDs): as ORCHIDv2'],
  ['2001:db8::/32', R, R],
  ['2002::/16', R, R, '6to4: N/A'],
  ['2620:4f:8000::/48', A, A, 'AS112 direct delegation: reachable'],
  ['3fff::/20', R, R],
  ['5f00::/16', R, R],
  ['fc00::/7', R, R],
  ['fe80::/10', R, R],
];

describe('SSRF guard: the IANA special-purpose registries, entry by entry (issue 42)', function () {
  it('the code lists exactly the registry blocks the test lists, each with its RFC', () => {
    const code = [...IPV4_SPECIAL_REGISTRY, ...IPV6_SPECIAL_REGISTRY];
    expect(code.map((e) => e.block).sort()).to.deep.equal(REGISTRY.map(([b]) => b).sort());
    for (const e of code) expect(e.rfc, e.block).to.match(/^RFC \d+/);
  });

  for (const [block, first, last, why] of REGISTRY) {
    const [lo, hi] = blockEnds(block);
    it(`${block}${why ? ` (${why})` : ''}: ${lo} ${first}, ${hi} ${last}`, () => {
      expect(isBlockedAddress(lo), lo).to.equal(first === 'refused');
      expect(isBlockedAddress(hi), hi).to.equal(last === 'refused');
    });
  }

  // Outside the special registries: IPv4 multicast and every IPv6 address outside 2000::/3.
  for (const { block } of OUTSIDE_UNICAST) {
    const [lo, hi] = blockEnds(block);
    it(`${block} (not global unicast): ${lo} and ${hi} refused`, () => {
      expect(isBlockedAddress(lo), lo).to.equal(true);
      expect(isBlockedAddress(hi), hi).to.equal(true);
    });
  }

  const refusedInside = [
    '2001:1::4', // 2001::/23 outside any reachable sub-block: refused, as is space not yet assigned
    '2001:5::1',
    '2001:40::1',
    '2001:1ff:ffff:ffff:ffff:ffff:ffff:ffff',
    'fec0::1', // deprecated site-local
    'ff0e::1', // global-scope multicast
    '64:ff9b::a00:1', // NAT64 of 10.0.0.1: judged by the IPv4 inside
    '2001:4860::200:5efe:a9fe:a9fe', // ISATAP id around 169.254.169.254
  ];
  for (const ip of refusedInside) it(`refuses ${ip}`, () => expect(isBlockedAddress(ip)).to.equal(true));

  const publicAddresses = [
    '1.0.0.1',
    '8.8.8.8',
    '9.9.9.9',
    '93.184.216.34',
    '100.63.255.255', // either side of 100.64.0.0/10
    '100.128.0.0',
    '172.15.255.255', // either side of 172.16.0.0/12
    '172.32.0.0',
    '192.0.1.0', // just after 192.0.0.0/24
    '192.88.98.255', // just before the 6to4 relay block
    '198.17.255.255', // either side of 198.18.0.0/15
    '198.20.0.0',
    '223.255.255.255', // the last unicast address before multicast
    '2001:200::1', // just after 2001::/23
    '2001:4860:4860::8888',
    '2606:4700:4700::1111',
    '2a00:1450:4001:80b::200e',
    '2620:fe::fe',
    '3ffe:ffff::1', // just before 3fff::/20
    '64:ff9b::8.8.8.8', // NAT64 of a public address
  ];
  for (const ip of publicAddresses) it(`allows ${ip}`, () => expect(isBlockedAddress(ip)).to.equal(false));
});
