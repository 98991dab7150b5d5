// Turns an Authorization header into the account it speaks for, or an AuthError.
import { randomUUID } from 'node:crypto';
import { decodeJwt } from 'jose';
import { StoreConflictError, type AccountRepository, type ApiKeyRepository } from '@spoor/store';
import type { AccountRecord } from '@spoor/schemas';
import { AuthError } from './auth-errors.js';
import { hashApiKey, isApiKeyShaped, API_KEY_PREFIX } from './api-key-codec.js';
import { parseBearer } from './bearer-header-parser.js';
import type { BuiltInIssuer } from './built-in-issuer.js';
import { ExternalIssuer, type ExternalIssuerOptions } from './external-issuer.js';
import { MAX_TOKEN_LENGTH, type IdentityClaims } from './token-policy.js';

export interface Principal {
  account_id: string;
  email: string | null;
  via: 'token' | 'api_key';
}

export interface AuthenticatorOptions {
  accounts: AccountRepository;
  apiKeys: ApiKeyRepository;
  builtIn: BuiltInIssuer;
  /** SPOOR_OIDC_ISSUER / SPOOR_OIDC_AUDIENCE, when set. */
  external?: ExternalIssuerOptions | null | undefined;
  clock?: () => number;
}

export class Authenticator {
  readonly #accounts: AccountRepository;
  readonly #apiKeys: ApiKeyRepository;
  readonly #builtIn: BuiltInIssuer;
  readonly #external: ExternalIssuer | null;
  readonly #clock: () => number;

  constructor(options: AuthenticatorOptions) {
    this.#accounts = options.accounts;
    this.#apiKeys = options.apiKeys;
    this.#builtIn = options.builtIn;
    this.#clock = options.clock ?? Date.now;
    const external = options.external ?? null;
    if (external && external.issuer === options.builtIn.issuerUrl) {
      throw new Error('SPOOR_OIDC_ISSUER must differ from the built-in issuer URL (SPOOR_PUBLIC_URL)');
    }
    this.#external = external ? new ExternalIssuer({ clock: this.#clock, ...external }) : null;
  }

  /**
   * Bad, expired, revoked or unverifiable credentials, and an unreachable identity provider,
   * all throw AuthError (401). Only a failing store propagates as it is: that is a server
   * fault (500/503), and answering 401 would make clients discard valid credentials.
   */
  async authenticate(authorizationHeader: string | undefined): Promise<Principal> {
    const credential = parseBearer(authorizationHeader);
    if (credential.startsWith(API_KEY_PREFIX)) return this.#byApiKey(credential);
    return this.#byToken(credential);
  }

  /**
   * No cache of positive answers: every request reads the key by its hash, so a revoked key is
   * refused by every gateway replica at the next request. The lookup is one indexed read; a
   * cache would save little and make revocation lag by its lifetime.
   */
  async #byApiKey(apiKey: string): Promise<Principal> {
    if (!isApiKeyShaped(apiKey)) throw new AuthError('invalid_api_key', 'Invalid API key');
    const record = await this.#apiKeys.findByHash(hashApiKey(apiKey));
    if (!record || record.revoked_at !== null) throw new AuthError('invalid_api_key', 'Invalid API key');
    const account = await this.#accounts.get(record.account_id);
    if (!account) throw new AuthError('invalid_api_key', 'Invalid API key');
    return { account_id: account.account_id, email: account.email, via: 'api_key' };
  }

  async #byToken(token: string): Promise<Principal> {
    if (token.length > MAX_TOKEN_LENGTH) throw new AuthError('malformed', 'Token too long');
    // The unverified `iss` only picks which keys to verify with; the verification then checks
    // `iss` again against that issuer (RFC 8725 §3.8), so a lie here just fails.
    const issuer = unverifiedIssuer(token);
    if (issuer === this.#builtIn.issuerUrl) {
      const claims = await this.#builtIn.verifyIdToken(token);
      // Built-in `sub` is the account id (signup sets subject = account_id). A valid signature is
      // not enough: the account must still exist (issue 13), as for API keys and external subjects.
      const account = await this.#accounts.get(claims.sub);
      if (!account) throw new AuthError('unknown_account', 'Invalid token: no such account');
      return { account_id: account.account_id, email: account.email, via: 'token' };
    }
    if (this.#external && issuer === this.#external.issuer) {
      const claims = await this.#external.verifyIdToken(token);
      const account = await this.#externalAccount(this.#external.issuer, claims);
      return { account_id: account.account_id, email: account.email, via: 'token' };
    }
    throw new AuthError('unknown_issuer', 'Invalid token: unknown issuer');
  }

  /** The account of (issuer, sub), created on first sight. */
  async #externalAccount(issuer: string, claims: IdentityClaims): Promise<AccountRecord> {
    const found = await this.#accounts.findBySubject(issuer, claims.sub);
    if (found) return found;
    const account: AccountRecord = {
      account_id: randomUUID(),
      email: claims.email,
      password_hash: null,
      issuer,
      subject: claims.sub,
      created_at: this.#clock(),
    };
    try {
      await this.#accounts.create(account);
      return account;
    } catch (err) {
      // Two first requests of one user racing: the other one created it; use that account.
      if (!(err instanceof StoreConflictError)) throw err;
      const winner = await this.#accounts.findBySubject(issuer, claims.sub);
      if (!winner) throw err;
      return winner;
    }
  }
}

function unverifiedIssuer(token: string): string {
  let iss: unknown;
  try {
    iss = decodeJwt(token).iss;
  } catch (err) {
    throw new AuthError('malformed', 'Invalid token: not a JWT', { cause: err });
  }
  if (typeof iss !== 'string') throw new AuthError('invalid_token', 'Invalid token: "iss" claim missing');
  return iss;
}
