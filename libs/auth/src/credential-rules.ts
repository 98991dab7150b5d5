// Rules for what users type: passwords, emails, API key names. Each check throws a
// a 422 (credentialRuleError) naming the field, so the gateway needs no second copy of the rules.
import { credentialRuleError } from './auth-errors.js';

export const PASSWORD_MIN_LENGTH = 8;
export const PASSWORD_MAX_LENGTH = 256;
export const API_KEY_NAME_PATTERN = /^[A-Za-z0-9._-]{1,64}$/;
// RFC 5321 §4.5.3.1.3 caps a path at 256 octets including the angle brackets: 254 for the address.
const EMAIL_MAX_LENGTH = 254;

/**
 * NFKC first, so the same password typed on two keyboards (composed vs decomposed accents,
 * full-width digits) hashes the same: NIST SP 800-63B §5.1.1.2. Length counts code points, not
 * UTF-16 units, so an emoji counts as one character.
 */
export function normalizePassword(password: string): string {
  return password.normalize('NFKC');
}

export function checkPassword(password: unknown): string {
  if (typeof password !== 'string') throw credentialRuleError('password', 'Field required', 'missing');
  const length = [...normalizePassword(password)].length;
  if (length < PASSWORD_MIN_LENGTH) {
    throw credentialRuleError(
      'password',
      `Password must have at least ${PASSWORD_MIN_LENGTH} characters`,
      'string_too_short',
    );
  }
  if (length > PASSWORD_MAX_LENGTH) {
    throw credentialRuleError(
      'password',
      `Password must have at most ${PASSWORD_MAX_LENGTH} characters`,
      'string_too_long',
    );
  }
  return password;
}

/**
 * Emails are compared lowercased (the store's rule). Deliberately loose: one `@` with text on
 * both sides and no whitespace. Real validation is whether mail arrives, not a regex.
 */
export function normalizeEmail(email: unknown): string {
  if (typeof email !== 'string') throw credentialRuleError('email', 'Field required', 'missing');
  const normalized = email.trim().toLowerCase();
  if (normalized.length > EMAIL_MAX_LENGTH || !/^[^\s@]+@[^\s@]+$/.test(normalized)) {
    throw credentialRuleError('email', 'value is not a valid email address', 'value_error');
  }
  return normalized;
}

export function checkApiKeyName(name: unknown): string {
  if (typeof name !== 'string') throw credentialRuleError('api_key_name', 'Field required', 'missing');
  if (!API_KEY_NAME_PATTERN.test(name)) {
    throw credentialRuleError(
      'api_key_name',
      'API key names are 1 to 64 characters of A-Z, a-z, 0-9, ".", "_" or "-"',
      'string_pattern_mismatch',
    );
  }
  return name;
}
