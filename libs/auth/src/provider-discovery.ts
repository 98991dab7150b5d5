// Fetches and caches an external provider's metadata (OpenID Connect Discovery 1.0).
import { AuthError } from './auth-errors.js';
import type { FetchFunction } from './issuer-fetch.js';

export interface ProviderMetadata {
  issuer: string;
  jwks_uri: string;
}

/** §4.1: `/.well-known/openid-configuration` after the issuer, minus a terminating `/`. */
export function discoveryUrl(issuer: string): string {
  return `${issuer.replace(/\/$/, '')}/.well-known/openid-configuration`;
}

const invalid = (why: string) =>
  new AuthError('issuer_unavailable', 'The identity provider could not be reached; try again later', {
    cause: new Error(`invalid discovery document: ${why}`),
  });

function parseMetadata(issuer: string, body: unknown): ProviderMetadata {
  if (typeof body !== 'object' || body === null) throw invalid('not a JSON object');
  const doc = body as Record<string, unknown>;
  // §4.3: the issuer in the document MUST be identical to the one we asked; otherwise an
  // attacker able to serve this document could mint tokens under another issuer's name.
  if (doc['issuer'] !== issuer) throw invalid(`issuer ${String(doc['issuer'])} is not ${issuer}`);
  const jwksUri = doc['jwks_uri'];
  if (typeof jwksUri !== 'string') throw invalid('jwks_uri missing');
  let protocol: string;
  try {
    protocol = new URL(jwksUri).protocol;
  } catch {
    throw invalid('jwks_uri is not a URL');
  }
  if (protocol !== 'https:' && protocol !== 'http:') throw invalid('jwks_uri is not http(s)');
  return { issuer, jwks_uri: jwksUri };
}

export class ProviderDiscovery {
  #cached: { metadata: ProviderMetadata; fetchedAt: number } | undefined;
  #pending: Promise<ProviderMetadata> | undefined;

  constructor(
    private readonly issuer: string,
    private readonly fetch: FetchFunction,
    private readonly clock: () => number,
    private readonly ttlMs = 3_600_000,
  ) {}

  /**
   * Cached for `ttlMs`; concurrent callers share one request. When a refresh fails, the last
   * good document is kept (jwks_uri rarely changes; refusing every token because discovery
   * blinked would be worse). Without any document: AuthError('issuer_unavailable').
   */
  async metadata(): Promise<ProviderMetadata> {
    const cached = this.#cached;
    if (cached && this.clock() - cached.fetchedAt < this.ttlMs) return cached.metadata;
    this.#pending ??= this.#refresh().finally(() => {
      this.#pending = undefined;
    });
    try {
      return await this.#pending;
    } catch (err) {
      if (cached) return cached.metadata;
      throw err;
    }
  }

  async #refresh(): Promise<ProviderMetadata> {
    const response = await this.fetch(discoveryUrl(this.issuer), { headers: { accept: 'application/json' } });
    let body: unknown;
    try {
      body = await response.json();
    } catch {
      throw invalid('not JSON');
    }
    const metadata = parseMetadata(this.issuer, body);
    this.#cached = { metadata, fetchedAt: this.clock() };
    return metadata;
  }
}
