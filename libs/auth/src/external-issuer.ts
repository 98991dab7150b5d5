// Verifies ID tokens of the external provider named by SPOOR_OIDC_ISSUER / SPOOR_OIDC_AUDIENCE.
import { createRemoteJWKSet, customFetch, jwtVerify } from 'jose';
import { createIssuerFetch, type FetchFunction } from './issuer-fetch.js';
import { ProviderDiscovery } from './provider-discovery.js';
import { refuseOnError } from './token-error-mapper.js';
import { EXTERNAL_ALGORITHMS, identityClaims, verifyOptions, type IdentityClaims } from './token-policy.js';

export interface ExternalIssuerOptions {
  /** Exactly the provider's `iss` (no normalisation: `https://x/` and `https://x` differ). */
  issuer: string;
  /** The `aud` tokens must carry: the client id Spoor's users log in with. */
  audience: string;
  /** Time for claim checks (`exp`, `nbf`); the caches below use Date.now like jose. */
  clock?: () => number;
  /** An unknown `kid` refetches the JWKS at most once per this (default 30 s). */
  jwksCooldownMs?: number;
  /** Keys are refetched when older than this, even without an unknown kid (default 10 min). */
  jwksCacheMaxAgeMs?: number;
  /** Per request to the provider (default 5 s). */
  timeoutMs?: number;
  /** After a failed request, calls fail at once for this long (default 5 s). */
  failureBackoffMs?: number;
  /** How long the discovery document is reused (default 1 h). */
  discoveryTtlMs?: number;
  /** For tests of faults only; defaults to the global fetch. */
  fetch?: FetchFunction;
}

type RemoteKeySet = ReturnType<typeof createRemoteJWKSet>;

export class ExternalIssuer {
  readonly issuer: string;
  readonly audience: string;
  readonly #clock: () => number;
  readonly #discovery: ProviderDiscovery;
  readonly #makeKeySet: (uri: string) => RemoteKeySet;
  #keySet: { uri: string; set: RemoteKeySet } | undefined;

  constructor(options: ExternalIssuerOptions) {
    this.issuer = options.issuer;
    this.audience = options.audience;
    this.#clock = options.clock ?? Date.now;
    const timeoutMs = options.timeoutMs ?? 5_000;
    const failureBackoffMs = options.failureBackoffMs ?? 5_000;
    const base = options.fetch === undefined ? {} : { fetch: options.fetch };
    this.#discovery = new ProviderDiscovery(
      this.issuer,
      createIssuerFetch({ ...base, timeoutMs, failureBackoffMs }),
      Date.now,
      options.discoveryTtlMs,
    );
    const jwksFetch = createIssuerFetch({ ...base, timeoutMs, failureBackoffMs });
    this.#makeKeySet = (uri) =>
      createRemoteJWKSet(new URL(uri), {
        timeoutDuration: timeoutMs,
        cooldownDuration: options.jwksCooldownMs ?? 30_000,
        cacheMaxAge: options.jwksCacheMaxAgeMs ?? 600_000,
        [customFetch]: jwksFetch,
      });
  }

  /** One key set per jwks_uri; a new uri in a refreshed discovery document gets a new set. */
  async #currentKeySet(): Promise<RemoteKeySet> {
    const { jwks_uri: uri } = await this.#discovery.metadata();
    if (this.#keySet?.uri !== uri) this.#keySet = { uri, set: this.#makeKeySet(uri) };
    return this.#keySet.set;
  }

  /**
   * OpenID Connect Core §3.1.3.7: signature by the provider's JWKS with an asymmetric
   * algorithm, `iss` identical, `aud` containing ours, `exp` required and in the future, `nbf`
   * honoured, 30 s leeway. `azp` is not checked: the token's client may legitimately be the
   * CLI or dashboard while `aud` names Spoor. Throws AuthError for every failure.
   */
  verifyIdToken(token: string): Promise<IdentityClaims> {
    return refuseOnError(async () => {
      const keySet = await this.#currentKeySet();
      const { payload } = await jwtVerify(
        token,
        keySet,
        verifyOptions(this.issuer, this.audience, EXTERNAL_ALGORITHMS, this.#clock()),
      );
      return identityClaims(payload);
    });
  }
}
