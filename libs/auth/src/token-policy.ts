// What every accepted ID token must satisfy, built-in or external.
import type { JWTPayload, JWTVerifyOptions } from 'jose';
import { AuthError } from './auth-errors.js';

/**
 * Leeway for `exp` and `nbf` between our clock and the issuer's (RFC 7519 §4.1.4 and §4.1.5
 * allow "some small leeway, usually no more than a few minutes"). 30 s covers NTP-synced hosts
 * and keeps an expired token's afterlife short.
 */
export const CLOCK_TOLERANCE_SECONDS = 30;

/**
 * Asymmetric algorithms only. Pinning them is what stops `alg: none` (RFC 7519 §6) and the
 * HS256-with-the-public-key-as-secret forgery (RFC 8725 §2.1, §3.1): the verifier must never
 * let the token choose how it is checked.
 */
export const EXTERNAL_ALGORITHMS = [
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
  'Ed25519',
];

/** Far above any real ID token; refuses megabyte headers before any parsing. */
export const MAX_TOKEN_LENGTH = 8192;

/**
 * jose options shared by both issuers. `exp` is OPTIONAL in a JWT (RFC 7519 §4.1.4) but
 * REQUIRED in an ID token (OpenID Connect Core §2), and a token without it would never expire:
 * required here. `iss` and `aud` are checked exactly (RFC 8725 §3.8, §3.9).
 */
export function verifyOptions(issuer: string, audience: string, algorithms: string[], now: number): JWTVerifyOptions {
  return {
    issuer,
    audience,
    algorithms,
    requiredClaims: ['exp', 'sub'],
    clockTolerance: CLOCK_TOLERANCE_SECONDS,
    currentDate: new Date(now),
  };
}

export interface IdentityClaims {
  sub: string;
  email: string | null;
  /** `jti` when the token carries one (the built-in issuer's always do). */
  jti: string | null;
  /** `exp`, seconds since the epoch (required by verifyOptions). */
  exp: number;
}

/** `sub` is REQUIRED and at most 255 ASCII characters (OpenID Connect Core §2). */
export function identityClaims(payload: JWTPayload): IdentityClaims {
  const { sub } = payload;
  if (typeof sub !== 'string' || sub.length === 0 || sub.length > 255) {
    throw new AuthError('invalid_token', 'Invalid token: "sub" claim must be a non-empty string');
  }
  const email = typeof payload['email'] === 'string' ? payload['email'].toLowerCase() : null;
  const jti = typeof payload.jti === 'string' && payload.jti.length > 0 ? payload.jti : null;
  return { sub, email, jti, exp: Number(payload.exp) };
}
