import { createHmac } from 'node:crypto';
import { isIPv4, isIPv6 } from 'node:net';

/** SPOOR_IP_MODE: what of the client address is stored (DESIGN.md, Ingestion). */
export type IpMode = 'full' | 'truncate' | 'hash';
export const IP_MODES: readonly IpMode[] = ['full', 'truncate', 'hash'];

/** Hex characters kept from the HMAC in `hash` mode: 128 bits, ample to tell visitors apart. */
export const IP_HASH_HEX_LENGTH = 32;

/**
 * Parses an IPv6 address (already validated by `isIPv6`, without zone id) into its eight
 * 16-bit groups. Handles `::` and a dotted IPv4 tail (`::ffff:1.2.3.4`, RFC 4291 §2.2).
 */
export function ipv6Groups(ip: string): number[] {
  const [head = '', tail] = ip.split('::', 2);
  const toGroups = (part: string): number[] => {
    if (part === '') return [];
    return part.split(':').flatMap((piece) => {
      if (!piece.includes('.')) return [parseInt(piece, 16)];
      const [a = 0, b = 0, c = 0, d = 0] = piece.split('.').map(Number);
      return [(a << 8) | b, (c << 8) | d];
    });
  };
  const left = toGroups(head);
  if (tail === undefined) return left;
  const right = toGroups(tail);
  return [...left, ...new Array<number>(8 - left.length - right.length).fill(0), ...right];
}

/**
 * Formats eight groups in the RFC 5952 §4 canonical form: lower case, no leading zeros,
 * the longest run (first on a tie) of two or more zero groups written `::`.
 */
export function formatIpv6(groups: readonly number[]): string {
  let bestStart = -1;
  let bestLength = 1;
  for (let i = 0; i < groups.length;) {
    let j = i;
    while (j < groups.length && groups[j] === 0) j++;
    if (j - i > bestLength) [bestStart, bestLength] = [i, j - i];
    i = j === i ? i + 1 : j;
  }
  const hex = groups.map((g) => g.toString(16));
  if (bestStart < 0) return hex.join(':');
  const before = hex.slice(0, bestStart).join(':');
  const after = hex.slice(bestStart + bestLength).join(':');
  return `${before}::${after}`;
}

/** `::ffff:a.b.c.d` (RFC 4291 §2.5.5.2) carries an IPv4 client through a dual-stack socket. */
function mappedIpv4(groups: readonly number[]): string | null {
  const isMapped = groups.length === 8 && groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff;
  if (!isMapped) return null;
  const hi = groups[6] ?? 0;
  const lo = groups[7] ?? 0;
  return `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
}

/**
 * The address as we treat it everywhere (geo, session key, storage): trimmed, IPv6 zone id
 * dropped (`fe80::1%eth0` names an interface of *our* host, RFC 6874), IPv4-mapped IPv6
 * turned into plain IPv4 so one client has one address whatever socket it came in on.
 * Null when the input is not an IP address.
 */
export function normaliseIp(input: string): string | null {
  let ip = input.trim();
  if (ip.includes(':')) {
    const zone = ip.indexOf('%');
    if (zone >= 0) ip = ip.slice(0, zone);
    if (!isIPv6(ip)) return null;
    // Only mapped addresses need parsing; other IPv6 strings stay as sent ("full" = as is).
    if (!/^[0:]*:ffff:/i.test(ip)) return ip;
    return mappedIpv4(ipv6Groups(ip)) ?? ip;
  }
  return isIPv4(ip) ? ip : null;
}

/** IPv4: zero the last octet (/24). IPv6: keep the first 48 bits (/48), the usual site prefix. */
export function truncateIp(ip: string): string {
  if (isIPv4(ip)) return ip.slice(0, ip.lastIndexOf('.')) + '.0';
  const groups = ipv6Groups(ip);
  return formatIpv6([groups[0] ?? 0, groups[1] ?? 0, groups[2] ?? 0, 0, 0, 0, 0, 0]);
}

/**
 * HMAC-SHA256 keyed with the salt, so the hash cannot be reversed by hashing all 2^32 IPv4
 * addresses without the salt. IPv6 is canonicalised first so `2001:DB8::1` and
 * `2001:db8:0::1` hash alike.
 */
export function hashIp(ip: string, salt: string): string {
  const canonical = isIPv6(ip) ? formatIpv6(ipv6Groups(ip)) : ip;
  return createHmac('sha256', salt).update(canonical).digest('hex').slice(0, IP_HASH_HEX_LENGTH);
}

/** The `ip` field stored for the event. Invalid or empty input gives '' (never throws). */
export function applyIpMode(input: string, mode: IpMode, salt: string): string {
  const ip = normaliseIp(input);
  if (ip === null) return '';
  switch (mode) {
    case 'full':
      return ip;
    case 'truncate':
      return truncateIp(ip);
    case 'hash':
      return hashIp(ip, salt);
  }
}
