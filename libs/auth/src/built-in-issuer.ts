// The built-in OpenID provider: email + password accounts, ES256 ID tokens, JWKS, discovery.
import { randomUUID } from 'node:crypto';
import { SignJWT, jwtVerify, type JWK, type JWTHeaderParameters } from 'jose';
import { StoreConflictError, type AccountRepository, type SigningKeyRepository } from '@spoor/store';
import { AuthError, InvalidCredentialsError, emailTaken } from './auth-errors.js';
import { checkPassword, normalizeEmail } from './credential-rules.js';
import { openIdConfiguration, type OpenIdConfiguration } from './openid-configuration.js';
import { hashPassword, timingEqualizer, verifyPassword } from './password-hasher.js';
import { BUILT_IN_ALG, SigningKeyRing } from './signing-key-ring.js';
import { refuseOnError } from './token-error-mapper.js';
import { identityClaims, verifyOptions, type IdentityClaims } from './token-policy.js';

/** `issuer` of built-in accounts in the store; independent of the public URL, which may change. */
export const BUILT_IN_ACCOUNT_ISSUER = 'spoor';

export interface BuiltInIssuerOptions {
  accounts: AccountRepository;
  signingKeys: SigningKeyRepository;
  /** SPOOR_PUBLIC_URL, else `http://host:port`; a trailing `/` is dropped. */
  issuerUrl: string;
  audience?: string;
  tokenTtlSeconds?: number;
  clock?: () => number;
  /** How often an unknown `kid` may re-read the signing key store (default 30 s). */
  keyReloadCooldownMs?: number;
}

export interface IssuedToken {
  id_token: string;
  /** When the token expires, ms since the epoch. */
  expires_at: number;
  account_id: string;
}

export class BuiltInIssuer {
  readonly issuerUrl: string;
  readonly audience: string;
  readonly #accounts: AccountRepository;
  readonly #keys: SigningKeyRing;
  readonly #ttlSeconds: number;
  readonly #clock: () => number;

  constructor(options: BuiltInIssuerOptions) {
    // Discovery §4.1 appends `/.well-known/...` to the issuer, and OpenID Connect Core
    // §3.1.3.7 compares `iss` exactly: one spelling, without the trailing slash.
    this.issuerUrl = new URL(options.issuerUrl).href.replace(/\/+$/, '');
    this.audience = options.audience ?? 'spoor';
    this.#accounts = options.accounts;
    this.#clock = options.clock ?? Date.now;
    this.#ttlSeconds = options.tokenTtlSeconds ?? 86_400;
    this.#keys = new SigningKeyRing(options.signingKeys, this.#clock, options.keyReloadCooldownMs);
  }

  /** Loads or creates the signing key; call at start-up to fail fast when the store is down. */
  async init(): Promise<{ kid: string }> {
    const [{ kid }] = await Promise.all([this.#keys.signingKey(), timingEqualizer()]);
    return { kid };
  }

  /** Creates a built-in account. 409 (email_taken), 422 (a credential rule). */
  async signup(email: string, password: string): Promise<IssuedToken> {
    const normalized = normalizeEmail(email);
    checkPassword(password);
    if (await this.#accounts.findByEmail(normalized)) throw emailTaken();
    const accountId = randomUUID();
    const passwordHash = await hashPassword(password);
    try {
      await this.#accounts.create({
        account_id: accountId,
        email: normalized,
        password_hash: passwordHash,
        issuer: BUILT_IN_ACCOUNT_ISSUER,
        subject: accountId,
        created_at: this.#clock(),
      });
    } catch (err) {
      // Two signups with one email racing past findByEmail: the store's constraint decides.
      if (err instanceof StoreConflictError) throw emailTaken();
      throw err;
    }
    return this.#issue(accountId, normalized);
  }

  /**
   * InvalidCredentialsError for an unknown email and for a wrong password alike; both paths
   * run one scrypt verification, so timing does not tell them apart either.
   */
  async login(email: string, password: string): Promise<IssuedToken> {
    let normalized: string | null = null;
    try {
      normalized = normalizeEmail(email);
    } catch {
      // A malformed email cannot have an account; answer as for any unknown email.
    }
    const account = normalized === null ? null : await this.#accounts.findByEmail(normalized);
    const builtIn = account !== null && account.issuer === BUILT_IN_ACCOUNT_ISSUER ? account : null;
    const matches = await verifyPassword(typeof password === 'string' ? password : '', builtIn?.password_hash ?? null);
    if (!matches || builtIn === null) throw new InvalidCredentialsError();
    return this.#issue(builtIn.account_id, builtIn.email);
  }

  async #issue(accountId: string, email: string | null): Promise<IssuedToken> {
    const { kid, privateKey } = await this.#keys.signingKey();
    const now = Math.floor(this.#clock() / 1000);
    const exp = now + this.#ttlSeconds;
    // RFC 7515 §4.1.4: `kid` tells verifiers which JWKS entry to use; `typ` per RFC 8725 §3.11.
    const header: JWTHeaderParameters = { alg: BUILT_IN_ALG, kid, typ: 'JWT' };
    const idToken = await new SignJWT(email === null ? {} : { email })
      .setProtectedHeader(header)
      .setIssuer(this.issuerUrl)
      .setAudience(this.audience)
      .setSubject(accountId)
      .setIssuedAt(now)
      .setNotBefore(now)
      .setExpirationTime(exp)
      // RFC 7519 §4.1.7: a unique id per token, so that logout can revoke this one token.
      .setJti(randomUUID())
      .sign(privateKey);
    return { id_token: idToken, expires_at: exp * 1000, account_id: accountId };
  }

  /**
   * Verifies a token this issuer signed: ES256 only, exact `iss` and `aud`, `exp` required,
   * `nbf` honoured. Throws AuthError for every failure. `sub` is the account id.
   */
  async verifyIdToken(token: string): Promise<IdentityClaims> {
    // Loading the keys is outside refuseOnError: a store that is down is a server fault (500),
    // not a bad token.
    await this.#keys.signingKey();
    return refuseOnError(async () => {
      const { payload } = await jwtVerify(
        token,
        async (header) => {
          const key = header.kid === undefined ? null : await this.#keys.verificationKey(header.kid);
          if (!key) throw new AuthError('invalid_token', 'Invalid token: unknown signing key');
          return key;
        },
        verifyOptions(this.issuerUrl, this.audience, [BUILT_IN_ALG], this.#clock()),
      );
      return identityClaims(payload);
    });
  }

  /** The body of `GET /.well-known/jwks.json` (RFC 7517 §5). */
  async jwks(): Promise<{ keys: JWK[] }> {
    return { keys: await this.#keys.publicJwks() };
  }

  /** The body of `GET /.well-known/openid-configuration`. */
  discovery(): OpenIdConfiguration {
    return openIdConfiguration(this.issuerUrl, BUILT_IN_ALG);
  }
}
