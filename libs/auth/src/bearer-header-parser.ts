// Reads the credential out of an `Authorization` header.
import { AuthError } from './auth-errors.js';
import { MAX_TOKEN_LENGTH } from './token-policy.js';

// RFC 6750 §2.1: credentials = "Bearer" 1*SP b64token, with
// b64token = 1*( ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/" ) *"=".
const B64TOKEN = /^[A-Za-z0-9\-._~+/]+=*$/;

/**
 * The bearer credential, or AuthError. The scheme is case-insensitive (RFC 9110 §11.1);
 * anything else (`Basic`, several credentials, junk characters) is refused here, before any
 * parsing or store access.
 */
export function parseBearer(header: string | undefined): string {
  const value = header?.trim() ?? '';
  if (value === '') throw new AuthError('missing', 'Not authenticated');
  if (value.length > MAX_TOKEN_LENGTH + 16) throw new AuthError('malformed', 'Authorization header too long');
  const match = /^(\S+)(?: +(.*))?$/.exec(value);
  if (!match || match[1]?.toLowerCase() !== 'bearer') {
    throw new AuthError('malformed', 'Unsupported authorization scheme; use "Authorization: Bearer <token>"');
  }
  const credential = match[2] ?? '';
  if (credential === '') throw new AuthError('missing', 'Not authenticated: empty bearer credential');
  if (!B64TOKEN.test(credential)) throw new AuthError('malformed', 'Malformed bearer credential');
  return credential;
}
