import { lookup as dnsLookup } from 'node:dns';
import { BlockList, isIP, isIPv4 } from 'node:net';

/** Targets a webhook may not reach unless private targets are allowed (DESIGN.md, webhooks). */
const V4: Array<[string, number]> = [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12],
  ['192.0.0.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15], ['224.0.0.0', 4], ['240.0.0.0', 4],
];
/** ::/96 holds ::, ::1 and the deprecated IPv4-compatible forms. Mapped and NAT64 forms are checked by their IPv4 part. */
const V6: Array<[string, number]> = [['::', 96], ['fc00::', 7], ['fe80::', 10], ['fec0::', 10], ['ff00::', 8]];

const v4 = new BlockList();
for (const [net, prefix] of V4) v4.addSubnet(net, prefix, 'ipv4');
const v6 = new BlockList();
for (const [net, prefix] of V6) v6.addSubnet(net, prefix, 'ipv6');

/** The eight 16-bit groups of an IPv6 address (a dotted IPv4 tail included). */
function hextets(ip: string): number[] {
  let text = ip.toLowerCase();
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted[1]!.split('.').map(Number) as [number, number, number, number];
    text = text.slice(0, -dotted[1]!.length) + `${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.split('::') as [string, string | undefined];
  const left = head ? head.split(':') : [];
  const right = tail !== undefined && tail !== '' ? tail.split(':') : [];
  const fill = tail !== undefined ? Array(8 - left.length - right.length).fill('0') : [];
  return [...left, ...fill, ...right].map((h) => parseInt(h, 16));
}

/** The IPv4 address inside an IPv4-mapped (::ffff:0:0/96) or NAT64 (64:ff9b::/96) address, if any. */
function embeddedV4(groups: number[]): string | null {
  const zero5 = groups.slice(0, 5).every((g) => g === 0);
  const mapped = zero5 && groups[5] === 0xffff;
  const nat64 = groups[0] === 0x64 && groups[1] === 0xff9b && groups.slice(2, 6).every((g) => g === 0);
  if (!mapped && !nat64) return null;
  const [hi, lo] = [groups[6]!, groups[7]!];
  return `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
}

/** True for loopback, private, link-local, unique-local, CGNAT, multicast, reserved and metadata addresses. */
export function isBlockedAddress(ip: string): boolean {
  const bare = ip.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  if (isIPv4(bare)) return v4.check(bare, 'ipv4');
  if (isIP(bare) !== 6) return true; // not an address: never a safe target
  const inner = embeddedV4(hextets(bare));
  if (inner) return v4.check(inner, 'ipv4');
  return v6.check(bare, 'ipv6');
}

export type LookupFn = (hostname: string) => Promise<string[]>;

/** Every address a name resolves to (A and AAAA, as the OS resolver answers them). */
export const systemLookup: LookupFn = (hostname) =>
  new Promise((resolve, reject) => dnsLookup(hostname, { all: true }, (err, addrs) => (err ? reject(err) : resolve(addrs.map((a) => a.address)))));

export type UrlVerdict = { ok: true; url: URL } | { ok: false; reason: string };

const ALLOW_HINT = 'set SPOOR_WEBHOOK_ALLOW_PRIVATE to allow private targets';

/**
 * Whether a user-given URL may be a webhook or chat target: http(s), no credentials, at most
 * 2048 characters, and (unless private targets are allowed) every address its host is or
 * resolves to is public. The WHATWG parser has already turned numeric hosts such as
 * `2130706433` or `0x7f.1` into dotted quads, so they are checked as addresses.
 */
export async function checkWebhookUrl(raw: string, opts: { allowPrivate: boolean; lookup?: LookupFn }): Promise<UrlVerdict> {
  if (raw.length > 2048) return { ok: false, reason: 'the URL is longer than 2048 characters' };
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, reason: 'not a URL' };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return { ok: false, reason: 'only http and https targets are allowed' };
  if (url.username || url.password) return { ok: false, reason: 'credentials in the URL are not allowed; put a token in the path or query' };
  if (opts.allowPrivate) return { ok: true, url };
  const host = url.hostname.replace(/^\[|\]$/g, '');
  let addresses: string[];
  if (isIP(host)) addresses = [host];
  else {
    try {
      addresses = await (opts.lookup ?? systemLookup)(host);
    } catch (err) {
      return { ok: false, reason: `${host} does not resolve (${(err as NodeJS.ErrnoException).code ?? 'lookup failed'})` };
    }
  }
  const blocked = addresses.find(isBlockedAddress);
  if (blocked) return { ok: false, reason: `the target ${host === blocked ? 'is' : 'resolves to'} ${blocked}, a loopback, private or link-local address; ${ALLOW_HINT}` };
  return { ok: true, url };
}
