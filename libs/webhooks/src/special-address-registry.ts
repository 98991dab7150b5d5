import { isIPv4 } from 'node:net';

/**
 * One entry of an IANA special-purpose address registry (RFC 6890, as updated by RFC 8190):
 * its block, name, defining RFC and its "Globally Reachable" column, `'n/a'` where the registry
 * says N/A. `refuse` overrides a `true` with the reason (ORCHIDs below).
 */
export interface RegistryEntry {
  block: string;
  name: string;
  rfc: string;
  globallyReachable: boolean | 'n/a';
  refuse?: string;
}

/**
 * https://www.iana.org/assignments/iana-ipv4-special-registry, every entry. A block nested in a
 * larger one (192.0.0.9/32 in 192.0.0.0/24) is judged by the most specific entry, as the
 * registry's footnote on 192.0.0.0/24 says.
 */
export const IPV4_SPECIAL_REGISTRY: readonly RegistryEntry[] = [
  { block: '0.0.0.0/8', name: '"This network"', rfc: 'RFC 791, 3.2', globallyReachable: false },
  { block: '0.0.0.0/32', name: '"This host on this network"', rfc: 'RFC 1122, 3.2.1.3', globallyReachable: false },
  { block: '10.0.0.0/8', name: 'Private-Use', rfc: 'RFC 1918', globallyReachable: false },
  { block: '100.64.0.0/10', name: 'Shared Address Space', rfc: 'RFC 6598', globallyReachable: false },
  { block: '127.0.0.0/8', name: 'Loopback', rfc: 'RFC 1122, 3.2.1.3', globallyReachable: false },
  { block: '169.254.0.0/16', name: 'Link Local', rfc: 'RFC 3927', globallyReachable: false },
  { block: '172.16.0.0/12', name: 'Private-Use', rfc: 'RFC 1918', globallyReachable: false },
  { block: '192.0.0.0/24', name: 'IETF Protocol Assignments', rfc: 'RFC 6890, 2.1', globallyReachable: false },
  { block: '192.0.0.0/29', name: 'IPv4 Service Continuity Prefix', rfc: 'RFC 7335', globallyReachable: false },
  { block: '192.0.0.8/32', name: 'IPv4 dummy address', rfc: 'RFC 7600', globallyReachable: false },
  { block: '192.0.0.9/32', name: 'Port Control Protocol Anycast', rfc: 'RFC 7723', globallyReachable: true },
  { block: '192.0.0.10/32', name: 'TURN Anycast', rfc: 'RFC 8155', globallyReachable: true },
  { block: '192.0.0.170/32', name: 'NAT64/DNS64 Discovery', rfc: 'RFC 8880, RFC 7050', globallyReachable: false },
  { block: '192.0.0.171/32', name: 'NAT64/DNS64 Discovery', rfc: 'RFC 8880, RFC 7050', globallyReachable: false },
  { block: '192.0.2.0/24', name: 'Documentation (TEST-NET-1)', rfc: 'RFC 5737', globallyReachable: false },
  { block: '192.31.196.0/24', name: 'AS112-v4', rfc: 'RFC 7535', globallyReachable: true },
  { block: '192.52.193.0/24', name: 'AMT', rfc: 'RFC 7450', globallyReachable: true },
  { block: '192.88.99.0/24', name: 'Deprecated (6to4 Relay Anycast)', rfc: 'RFC 7526', globallyReachable: 'n/a' },
  { block: '192.88.99.2/32', name: '6a44-relay anycast address', rfc: 'RFC 6751', globallyReachable: false },
  { block: '192.168.0.0/16', name: 'Private-Use', rfc: 'RFC 1918', globallyReachable: false },
  { block: '192.175.48.0/24', name: 'Direct Delegation AS112 Service', rfc: 'RFC 7534', globallyReachable: true },
  { block: '198.18.0.0/15', name: 'Benchmarking', rfc: 'RFC 2544', globallyReachable: false },
  { block: '198.51.100.0/24', name: 'Documentation (TEST-NET-2)', rfc: 'RFC 5737', globallyReachable: false },
  { block: '203.0.113.0/24', name: 'Documentation (TEST-NET-3)', rfc: 'RFC 5737', globallyReachable: false },
  { block: '240.0.0.0/4', name: 'Reserved', rfc: 'RFC 1112, 4', globallyReachable: false },
  { block: '255.255.255.255/32', name: 'Limited Broadcast', rfc: 'RFC 8190, RFC 919 7', globallyReachable: false },
];

/**
 * ORCHIDs are host identities, not locators: "they should not appear in actual IP headers"
 * (RFC 7343, abstract). A connection to one goes to whatever peer the local HIP stack maps it to,
 * or nowhere; never to a public server by routing. The registry marks them reachable because a
 * HIP host may use them end to end; a webhook target has no use for them (issue 42).
 */
const IDENTIFIER_NOT_LOCATOR = 'a HIP identifier (ORCHID, RFC 7343), not a routable locator';

/**
 * https://www.iana.org/assignments/iana-ipv6-special-registry, every entry.
 *
 * 2001::/23 (IETF Protocol Assignments) is not reachable as a whole, while some of its
 * sub-blocks are, and new sub-blocks keep being assigned from it. The most specific entry
 * decides, so every address of the /23 that no listed sub-block claims as reachable — space not
 * yet assigned included — is refused: a new assignment is refused until it is added here, which
 * errs on the safe side. The reachable sub-blocks that stay allowed: 2001:1::1, 2001:1::2,
 * 2001:1::3 (PCP, TURN and DNS-SD SRP anycast), 2001:3::/32 (AMT), 2001:4:112::/48 (AS112-v6).
 * ORCHIDv2 and the DETs (which are ORCHIDs, RFC 9374 3) are refused although the registry calls
 * them reachable: see IDENTIFIER_NOT_LOCATOR.
 *
 * N/A entries (Teredo, 6to4, the deprecated ORCHID block) are refused whole: their reachability
 * depends on an IPv4 address or a relay the registry cannot vouch for, and none is a form a
 * public webhook needs.
 */
export const IPV6_SPECIAL_REGISTRY: readonly RegistryEntry[] = [
  { block: '::1/128', name: 'Loopback Address', rfc: 'RFC 4291', globallyReachable: false },
  { block: '::/128', name: 'Unspecified Address', rfc: 'RFC 4291', globallyReachable: false },
  { block: '::ffff:0:0/96', name: 'IPv4-mapped Address', rfc: 'RFC 4291', globallyReachable: false },
  { block: '64:ff9b::/96', name: 'IPv4-IPv6 Translat.', rfc: 'RFC 6052', globallyReachable: true },
  { block: '64:ff9b:1::/48', name: 'IPv4-IPv6 Translat.', rfc: 'RFC 8215', globallyReachable: false },
  { block: '100::/64', name: 'Discard-Only Address Block', rfc: 'RFC 6666', globallyReachable: false },
  { block: '100:0:0:1::/64', name: 'Dummy IPv6 Prefix', rfc: 'RFC 9780', globallyReachable: false },
  { block: '2001::/23', name: 'IETF Protocol Assignments', rfc: 'RFC 2928', globallyReachable: false },
  { block: '2001::/32', name: 'TEREDO', rfc: 'RFC 4380, RFC 8190', globallyReachable: 'n/a' },
  { block: '2001:1::1/128', name: 'Port Control Protocol Anycast', rfc: 'RFC 7723', globallyReachable: true },
  { block: '2001:1::2/128', name: 'TURN Anycast', rfc: 'RFC 8155', globallyReachable: true },
  { block: '2001:1::3/128', name: 'DNS-SD SRP Anycast', rfc: 'RFC 9665', globallyReachable: true },
  { block: '2001:2::/48', name: 'Benchmarking', rfc: 'RFC 5180, Errata 1752', globallyReachable: false },
  { block: '2001:3::/32', name: 'AMT', rfc: 'RFC 7450', globallyReachable: true },
  { block: '2001:4:112::/48', name: 'AS112-v6', rfc: 'RFC 7535', globallyReachable: true },
  { block: '2001:10::/28', name: 'Deprecated (previously ORCHID)', rfc: 'RFC 4843', globallyReachable: 'n/a' },
  {
    block: '2001:20::/28',
    name: 'ORCHIDv2',
    rfc: 'RFC 7343',
    globallyReachable: true,
    refuse: IDENTIFIER_NOT_LOCATOR,
  },
  {
    block: '2001:30::/28',
    name: 'Drone Remote ID Protocol Entity Tags (DETs) Prefix',
    rfc: 'RFC 9374',
    globallyReachable: true,
    refuse: IDENTIFIER_NOT_LOCATOR,
  },
  { block: '2001:db8::/32', name: 'Documentation', rfc: 'RFC 3849', globallyReachable: false },
  { block: '2002::/16', name: '6to4', rfc: 'RFC 3056', globallyReachable: 'n/a' },
  { block: '2620:4f:8000::/48', name: 'Direct Delegation AS112 Service', rfc: 'RFC 7534', globallyReachable: true },
  { block: '3fff::/20', name: 'Documentation', rfc: 'RFC 9637', globallyReachable: false },
  { block: '5f00::/16', name: 'Segment Routing (SRv6) SIDs', rfc: 'RFC 9602', globallyReachable: false },
  { block: 'fc00::/7', name: 'Unique-Local', rfc: 'RFC 4193, RFC 8190', globallyReachable: false },
  { block: 'fe80::/10', name: 'Link-Local Unicast', rfc: 'RFC 4291', globallyReachable: false },
];

/**
 * What the special-purpose registries leave to the address-space registries: IPv4 multicast
 * (https://www.iana.org/assignments/ipv4-address-space, RFC 5771), and every IPv6 address outside
 * 2000::/3, the only block https://www.iana.org/assignments/ipv6-address-space allocates as
 * global unicast (RFC 4291 2.4): multicast ff00::/8, the deprecated site-local fec0::/10
 * (RFC 3879), the IPv4-compatible ::/96 and the rest of the space reserved by the IETF. Special
 * entries inside these (64:ff9b::/96) are more specific and still decide.
 */
export const OUTSIDE_UNICAST: readonly RegistryEntry[] = [
  { block: '224.0.0.0/4', name: 'Multicast', rfc: 'RFC 5771', globallyReachable: false },
  { block: '::/3', name: 'Reserved by IETF (outside 2000::/3)', rfc: 'RFC 4291', globallyReachable: false },
  { block: '4000::/2', name: 'Reserved by IETF (outside 2000::/3)', rfc: 'RFC 4291', globallyReachable: false },
  {
    block: '8000::/1',
    name: 'Reserved by IETF, ULA, link-local, multicast',
    rfc: 'RFC 4291',
    globallyReachable: false,
  },
];

/** An address as a number: 32 bits for IPv4, 128 for IPv6 (a dotted IPv4 tail included). */
export function addressBits(ip: string): { v4: boolean; value: bigint } {
  if (isIPv4(ip)) return { v4: true, value: ip.split('.').reduce((n, o) => (n << 8n) | BigInt(o), 0n) };
  return { v4: false, value: hextets(ip).reduce((n, h) => (n << 16n) | BigInt(h), 0n) };
}

/** The eight 16-bit groups of an IPv6 address (a dotted IPv4 tail included). */
export function hextets(ip: string): number[] {
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

interface Block {
  v4: boolean;
  base: bigint;
  length: number;
  refused: boolean;
}

const compile = (e: RegistryEntry): Block => {
  const [net, length] = e.block.split('/') as [string, string];
  const { v4, value } = addressBits(net);
  return { v4, base: value, length: Number(length), refused: e.globallyReachable !== true || e.refuse !== undefined };
};

const BLOCKS = [...IPV4_SPECIAL_REGISTRY, ...IPV6_SPECIAL_REGISTRY, ...OUTSIDE_UNICAST].map(compile);

/**
 * Whether the registries refuse an address (a valid IPv4 or IPv6 literal without zone): the most
 * specific block that holds it decides; an address no block holds is public.
 */
export function refusedByRegistry(ip: string): boolean {
  const { v4, value } = addressBits(ip);
  const width = v4 ? 32n : 128n;
  let best: Block | null = null;
  for (const b of BLOCKS) {
    if (b.v4 !== v4 || (best && best.length >= b.length)) continue;
    const shift = width - BigInt(b.length);
    if (value >> shift === b.base >> shift) best = b;
  }
  return best?.refused ?? false;
}
