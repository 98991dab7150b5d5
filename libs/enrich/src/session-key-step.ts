import { createHmac } from 'node:crypto';
import { normaliseIp } from './ip-step.js';

export const SESSION_KEY_HEX_LENGTH = 32;

/**
 * A short stable key for "this visitor of this project": the sessionizer adds the day and
 * the 30-minute cut to derive a session id when the logger sent none (DESIGN.md, Ingestion).
 *
 * Computed from the ORIGINAL address, before SPOOR_IP_MODE truncates or hashes it: two
 * visitors behind one /24 must not share a session. Keyed with the IP salt so the key,
 * which may end up stored, cannot be reversed into an IP by trying all 2^32 IPv4 addresses;
 * changing the salt therefore starts new sessions. The tuple is JSON-encoded so no choice of
 * separator can make two different tuples collide.
 */
export function deriveSessionKey(projectId: string, ip: string, userAgent: string, salt: string): string {
  const address = normaliseIp(ip) ?? ip.trim();
  return createHmac('sha256', salt)
    .update(JSON.stringify([projectId, address, userAgent]))
    .digest('hex')
    .slice(0, SESSION_KEY_HEX_LENGTH);
}
