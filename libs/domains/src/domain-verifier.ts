import { Resolver } from 'node:dns/promises';
import { isIP } from 'node:net';
import { isLoopbackOrigin } from '@spoor/schemas';
import { verificationRecord, type VerificationRecord } from './verification-record.js';

export interface VerifyDomainOptions {
  origin: string;
  token: string;
  /** `host:port` (SPOOR_DNS_SERVER); null asks the system's resolvers (/etc/resolv.conf). */
  dnsServer: string | null;
  /** The whole lookup's budget; default 5 s. */
  timeoutMs?: number;
}

export interface DomainVerification {
  verified: boolean;
  /** Why not (or `loopback` when no lookup was needed). `timeout` when no answer came in time. */
  reason?: string;
}

const DEFAULT_TIMEOUT_MS = 5_000;

/** Codes c-ares gives when the server answered that there is nothing (or refused to say). */
const ABSENT = new Set(['ENOTFOUND', 'ENODATA']);
const NO_ANSWER = new Set(['ETIMEOUT', 'ECANCELLED']);

/**
 * Looks the origin's `_spoor.<host>` TXT records up and answers whether one of them reads
 * `spoor-verify=<token>`. A record's character-strings are joined first (RFC 7208 §3.3 does
 * the same for SPF: long values arrive split into 255-byte chunks); other TXT records at the
 * name are allowed. Localhost and loopback origins count as verified without DNS. DNS
 * failures and timeouts are answers (not verified, with a reason), never throws; only an
 * unparsable dnsServer throws, as a configuration error.
 */
export async function verifyDomain(opts: VerifyDomainOptions): Promise<DomainVerification> {
  if (isLoopbackOrigin(opts.origin)) return { verified: true, reason: 'loopback' };
  let record: VerificationRecord;
  try {
    record = verificationRecord(opts.origin, opts.token);
  } catch {
    return { verified: false, reason: `not an origin: ${opts.origin}` };
  }
  if (isIP(new URL(opts.origin).hostname.replace(/^\[|\]$/g, '')) !== 0) {
    return { verified: false, reason: 'an IP address has no DNS name to hold the record' };
  }
  const timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  // One try with the whole budget; the timer below also cancels anything c-ares still retries.
  const resolver = new Resolver({ timeout: timeoutMs, tries: 1 });
  if (opts.dnsServer !== null) resolver.setServers([opts.dnsServer]);
  const timer = setTimeout(() => resolver.cancel(), timeoutMs);
  try {
    const records = (await resolver.resolveTxt(record.name)).map((chunks) => chunks.join(''));
    if (records.some((value) => value.trim() === record.value)) return { verified: true };
    return { verified: false, reason: `no TXT record at ${record.name} reads ${record.value}` };
  } catch (error) {
    const code = String((error as NodeJS.ErrnoException).code ?? '');
    if (NO_ANSWER.has(code)) return { verified: false, reason: 'timeout' };
    if (ABSENT.has(code)) return { verified: false, reason: `no TXT record at ${record.name}` };
    return { verified: false, reason: `DNS lookup of ${record.name} failed: ${code || (error as Error).message}` };
  } finally {
    clearTimeout(timer);
  }
}
