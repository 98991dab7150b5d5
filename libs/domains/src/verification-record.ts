import { randomBytes } from 'node:crypto';

/** The DNS record that proves control of an origin's host (DESIGN.md, Projects). */
export interface VerificationRecord {
  type: 'TXT';
  name: string;
  value: string;
}

export const RECORD_PREFIX = '_spoor.';
export const VALUE_PREFIX = 'spoor-verify=';

/**
 * `_spoor.<host>` with the host as WHATWG URL parsing gives it: lowercase, IDNs in punycode
 * (what a DNS zone holds; UTS #46), port and path dropped, a trailing root dot removed. The
 * underscore label keeps the record apart from any real host name (RFC 8552 reserves
 * underscored names for such attribute records). Throws a TypeError for a non-URL origin.
 */
export function verificationRecord(origin: string, token: string): VerificationRecord {
  const host = new URL(origin).hostname.replace(/\.$/, '');
  if (host === '') throw new TypeError(`origin has no host: ${JSON.stringify(origin)}`);
  return { type: 'TXT', name: `${RECORD_PREFIX}${host}`, value: `${VALUE_PREFIX}${token}` };
}

/** 128 random bits, base64url (22 characters): safe in URLs, JSON and a TXT value. */
export function newVerificationToken(): string {
  return randomBytes(16).toString('base64url');
}
