// The API key format: `spk_` + 43 characters of base64url (32 random bytes, 256 bits).
import { createHash, randomBytes } from 'node:crypto';

export const API_KEY_PREFIX = 'spk_';
// 32 bytes → 43 base64url characters without padding (RFC 4648 §5).
const API_KEY_PATTERN = /^spk_[A-Za-z0-9_-]{43}$/;

/**
 * A new secret. The prefix makes leaked keys easy to recognise for secret scanners and lets
 * the authenticator tell a key from a JWT without trying to parse it.
 */
export function generateApiKey(): string {
  return API_KEY_PREFIX + randomBytes(32).toString('base64url');
}

export function isApiKeyShaped(credential: string): boolean {
  return API_KEY_PATTERN.test(credential);
}

/**
 * What the store keeps and looks up: SHA-256, hex. A fast unsalted hash is enough here, unlike
 * for passwords: with 256 random bits there is nothing to guess, and lookup needs the same
 * hash for the same key. Looking up by hash also means the database compares hashes, never
 * secrets, so index timing reveals nothing about a valid key.
 */
export function hashApiKey(apiKey: string): string {
  return createHash('sha256').update(apiKey, 'utf8').digest('hex');
}
