import { randomBytes } from 'node:crypto';

/**
 * A UUIDv7 (RFC 9562, section 5.7): 48 bits of Unix milliseconds, then random bits. Stores key
 * events by (project, event_id), so time-ordered ids keep a project's recent events together.
 */
export function uuidv7(nowMs: number): string {
  const bytes = randomBytes(16);
  bytes.writeUIntBE(nowMs, 0, 6);
  bytes[6] = (bytes[6]! & 0x0f) | 0x70;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
