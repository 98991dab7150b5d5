import { lookup as dnsLookup } from 'node:dns';
import { isIP, isIPv4 } from 'node:net';
import { hextets, refusedByRegistry } from './special-address-registry.js';

const v4Of = (hi: number, lo: number) => `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
const zeros = (groups: number[], from: number, to: number) => groups.slice(from, to).every((g) => g === 0);

/**
 * The IPv4 addresses an IPv6 address carries, by every form that routes to or names one
 * (issue 13): IPv4-mapped `::ffff:0:0/96`, IPv4-translated `::ffff:0:0:0/96`, NAT64
 * `64:ff9b::/96`, 6to4 `2002::/16` (bits 16–47), Teredo `2001::/32` (the server in bits 32–63,
 * the client inverted in the last 32) and ISATAP interface ids (`…:0:5efe:a.b.c.d`). Such an
 * address is judged by what it embeds too (the registry already refuses the mapped, 6to4 and Teredo
 * blocks whole; NAT64 and ISATAP remain).
 */
function embeddedV4(g: number[]): string[] {
  if (zeros(g, 0, 5) && g[5] === 0xffff) return [v4Of(g[6]!, g[7]!)];
  if (zeros(g, 0, 4) && g[4] === 0xffff && g[5] === 0) return [v4Of(g[6]!, g[7]!)];
  if (g[0] === 0x64 && g[1] === 0xff9b && zeros(g, 2, 6)) return [v4Of(g[6]!, g[7]!)];
  if (g[0] === 0x2002) return [v4Of(g[1]!, g[2]!)];
  if (g[0] === 0x2001 && g[1] === 0) return [v4Of(g[2]!, g[3]!), v4Of(g[6]! ^ 0xffff, g[7]! ^ 0xffff)];
  if ((g[4] === 0 || g[4] === 0x200) && g[5] === 0x5efe) return [v4Of(g[6]!, g[7]!)];
  return [];
}

/**
 * True for every address the IANA special-purpose registries do not call globally reachable
 * (special-address-registry.ts: loopback, private, link-local, unique-local, CGNAT, reserved,
 * documentation, benchmarking, ORCHID …), multicast, IPv6 outside 2000::/3, anything that is not
 * an address, and every IPv6 address whose embedded IPv4 address is refused (issue 42).
 */
export function isBlockedAddress(ip: string): boolean {
  const bare = ip.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  if (isIPv4(bare)) return refusedByRegistry(bare);
  if (isIP(bare) !== 6) return true; // not an address: never a safe target
  // Both judge: the IPv6 block (::ffff:0:0/96, 2002::/16 and Teredo are refused whole by the
  // registry) and, for the forms that remain (NAT64 64:ff9b::/96, ISATAP ids), the IPv4 inside.
  return refusedByRegistry(bare) || embeddedV4(hextets(bare)).some(refusedByRegistry);
}

export type LookupFn = (hostname: string) => Promise<string[]>;

/** Every address a name resolves to (A and AAAA, as the OS resolver answers them). */
export const systemLookup: LookupFn = (hostname) =>
  new Promise((resolve, reject) =>
    dnsLookup(hostname, { all: true }, (err, addrs) => (err ? reject(err) : resolve(addrs.map((a) => a.address)))),
  );

export type UrlVerdict = { ok: true; url: URL } | { ok: false; reason: string };

const ALLOW_HINT = 'set SPOOR_WEBHOOK_ALLOW_PRIVATE to allow private targets';

/**
 * Whether a user-given URL may be a webhook or chat target: http(s), no credentials, at most
 * 2048 characters, and (unless private targets are allowed) every address its host is or
 * resolves to is public. The WHATWG parser has already turned numeric hosts such as
 * `2130706433` or `0x7f.1` into dotted quads, so they are checked as addresses.
 */
export async function checkWebhookUrl(
  raw: string,
  opts: { allowPrivate: boolean; lookup?: LookupFn },
): Promise<UrlVerdict> {
  if (raw.length > 2048) return { ok: false, reason: 'the URL is longer than 2048 characters' };
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, reason: 'not a URL' };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    return { ok: false, reason: 'only http and https targets are allowed' };
  if (url.username || url.password)
    return { ok: false, reason: 'credentials in the URL are not allowed; put a token in the path or query' };
  if (opts.allowPrivate) return { ok: true, url };
  const host = url.hostname.replace(/^\[|\]$/g, '');
  let addresses: string[];
  if (isIP(host)) addresses = [host];
  else {
    try {
      addresses = await (opts.lookup ?? systemLookup)(host);
    } catch {
      addresses = [];
    }
  }
  // One answer for a private address, a name that resolves to one and a name that does not
  // resolve: saying which (or what a name resolved to) would let a caller map internal DNS.
  if (addresses.length === 0 || addresses.some(isBlockedAddress))
    return { ok: false, reason: `the target is not a public address; ${ALLOW_HINT}` };
  return { ok: true, url };
}
