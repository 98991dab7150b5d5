// Logout: an ID token revoked before its expiry (POST /v1/auth/logout). Revocations live in the
// store, the system of record (DESIGN.md, Architecture), so every gateway process and every
// restart refuses the token; the check is one keyed read per request with an ID token.
import { createHash } from 'node:crypto';
import type { TokenRevocationRepository } from '@spoor/store';
import { CLOCK_TOLERANCE_SECONDS, type IdentityClaims } from './token-policy.js';

/** What logout needs to revoke the token a request was made with. */
export interface TokenHandle {
  /** `jti:<jti>` (built-in issuer) or `sha256:<hex>` of the whole token. */
  id: string;
  /** Until when the token would be accepted anyway: `exp` plus the clock leeway, ms. */
  expires_at: number;
}

/**
 * The built-in issuer's `jti` is a random UUID in a token only it signs, so it names one token.
 * An external issuer's `jti` is only unique per issuer and optional (RFC 7519 §4.1.7), so its
 * tokens are named by their hash; a built-in token issued before `jti` existed likewise.
 */
export function tokenHandle(token: string, claims: IdentityClaims, builtIn: boolean): TokenHandle {
  const id =
    builtIn && claims.jti !== null ? `jti:${claims.jti}` : `sha256:${createHash('sha256').update(token).digest('hex')}`;
  return { id, expires_at: (claims.exp + CLOCK_TOLERANCE_SECONDS) * 1000 };
}

export class TokenRevocations {
  constructor(
    private readonly repository: TokenRevocationRepository,
    private readonly clock: () => number,
  ) {}

  isRevoked(handle: TokenHandle): Promise<boolean> {
    return this.repository.isRevoked(handle.id, this.clock());
  }

  revoke(handle: TokenHandle): Promise<void> {
    return this.repository.revoke({ token_id: handle.id, expires_at: handle.expires_at, revoked_at: this.clock() });
  }
}
