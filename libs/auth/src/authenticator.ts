// Turns an Authorization header into the account it speaks for, or an AuthError.
import { createHash, randomUUID } from 'node:crypto';
import { decodeJwt } from 'jose';
import {
  StoreConflictError,
  type AccountRepository,
  type ApiKeyRepository,
  type TokenRevocationRepository,
} from '@spoor/store';
import type { AccountRecord, ApiKeyScope } from '@spoor/schemas';
import { AuthError } from './auth-errors.js';
import { hashApiKey, isApiKeyShaped, API_KEY_PREFIX } from './api-key-codec.js';
import { parseBearer } from './bearer-header-parser.js';
import { BUILT_IN_ACCOUNT_ISSUER, type BuiltInIssuer } from './built-in-issuer.js';
import { ExternalIssuer, type ExternalIssuerOptions } from './external-issuer.js';
import { OperatorPolicy } from './operator-policy.js';
import { MAX_TOKEN_LENGTH, type IdentityClaims } from './token-policy.js';
import { TokenRevocations, tokenHandle, type TokenHandle } from './token-revocation.js';

export interface Principal {
  account_id: string;
  email: string | null;
  via: 'token' | 'api_key';
  /** The API key's name when `via` is `api_key` (the audit trail names it; issue 45). */
  api_key_name?: string;
  /** What the credential may do: an ID token everything (`full`), an API key its scope. */
  scope: ApiKeyScope;
  /** An operator's credential (operator-policy.ts): system-wide health. */
  operator: boolean;
  /** The ID token the request was made with, for logout; null for an API key. */
  token: TokenHandle | null;
}

export interface AuthenticatorOptions {
  accounts: AccountRepository;
  apiKeys: ApiKeyRepository;
  revokedTokens: TokenRevocationRepository;
  builtIn: BuiltInIssuer;
  /** SPOOR_OIDC_ISSUER / SPOOR_OIDC_AUDIENCE, when set. */
  external?: ExternalIssuerOptions | null | undefined;
  /** SPOOR_ADMIN_EMAILS: the operators' accounts. */
  adminEmails?: readonly string[];
  /** The install's first account, the operator while SPOOR_ADMIN_EMAILS names none (installOperator). */
  firstAccount?: () => Promise<string | null>;
  clock?: () => number;
}

/**
 * How long an operator's credential, once accepted by this process, is still honoured while the
 * store cannot answer (issue 16, docs/reliability.md): the operator must be able to read
 * /v1/status/health during a store outage, and the store is what checks accounts and revocations.
 * Only on a store failure, never instead of a refusal; during the outage no revocation can be
 * recorded anyway, so what it risks is a revocation made in the minutes before the outage.
 */
export const OPERATOR_STALE_IF_ERROR_MS = 5 * 60_000;
const MAX_REMEMBERED_OPERATORS = 100;

/**
 * How long an ID token whose signature and claims checked out is not checked again (issue 15):
 * the ES256 verification cost ~0.85 ms of the HTTP thread per request, more than an engine
 * query. Only the signature and the claims are remembered, never past the token's `exp` (plus the
 * leeway): the revocation and the account are read on every request as before. Only the
 * built-in issuer's tokens are remembered: the same string verifies the same way against the same
 * keys, and that issuer never drops a key. An external provider's tokens are verified every time,
 * since a key it takes out of its JWKS must stop verifying once the key set is fetched again.
 */
export const VERIFIED_TOKEN_MEMO_MS = 60_000;
const MAX_VERIFIED_TOKENS = 10_000;

interface VerifiedToken {
  claims: IdentityClaims;
  builtIn: boolean;
  /** Clock ms after which the token is verified again. */
  until: number;
}

export class Authenticator {
  readonly #operatorsSeen = new Map<string, { principal: Principal; at: number }>();
  /** By the credential's SHA-256, as #operatorsSeen. */
  readonly #verifiedTokens = new Map<string, VerifiedToken>();
  readonly #accounts: AccountRepository;
  readonly #apiKeys: ApiKeyRepository;
  readonly #builtIn: BuiltInIssuer;
  readonly #external: ExternalIssuer | null;
  readonly #revocations: TokenRevocations;
  readonly #clock: () => number;
  readonly operators: OperatorPolicy;

  constructor(options: AuthenticatorOptions) {
    this.#accounts = options.accounts;
    this.#apiKeys = options.apiKeys;
    this.#builtIn = options.builtIn;
    this.#clock = options.clock ?? Date.now;
    this.#revocations = new TokenRevocations(options.revokedTokens, this.#clock);
    this.operators = new OperatorPolicy(options.adminEmails, options.firstAccount);
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
    const key = createHash('sha256').update(credential).digest('hex');
    try {
      const principal = credential.startsWith(API_KEY_PREFIX)
        ? await this.#byApiKey(credential)
        : await this.#byToken(credential, key);
      if (principal.operator) this.#rememberOperator(key, principal);
      return principal;
    } catch (err) {
      if (err instanceof AuthError) {
        this.#operatorsSeen.delete(key);
        throw err;
      }
      const seen = this.#operatorsSeen.get(key);
      const now = this.#clock();
      if (
        seen &&
        now - seen.at <= OPERATOR_STALE_IF_ERROR_MS &&
        (seen.principal.token === null || seen.principal.token.expires_at > now)
      )
        return seen.principal;
      throw err;
    }
  }

  #rememberOperator(key: string, principal: Principal): void {
    this.#operatorsSeen.delete(key);
    if (this.#operatorsSeen.size >= MAX_REMEMBERED_OPERATORS)
      this.#operatorsSeen.delete(this.#operatorsSeen.keys().next().value!);
    this.#operatorsSeen.set(key, { principal, at: this.#clock() });
  }

  /**
   * No cache of positive answers here: every request reads the key by its hash, so a revoked key
   * is refused by every gateway replica at the next request. (The store the gateway hands in
   * answers from memory only where this process holds it alone and hears every revocation:
   * libs/store/src/record-cache.ts, `credentials`.)
   */
  async #byApiKey(apiKey: string): Promise<Principal> {
    if (!isApiKeyShaped(apiKey)) throw new AuthError('invalid_api_key', 'Invalid API key');
    const record = await this.#apiKeys.findByHash(hashApiKey(apiKey));
    if (!record || record.revoked_at !== null) throw new AuthError('invalid_api_key', 'Invalid API key');
    const account = await this.#accounts.get(record.account_id);
    if (!account) throw new AuthError('invalid_api_key', 'Invalid API key');
    return {
      account_id: account.account_id,
      email: account.email,
      via: 'api_key',
      api_key_name: record.api_key_name,
      scope: record.scope,
      operator: await this.operators.isOperator(account, record.scope),
      token: null,
    };
  }

  /**
   * Revokes the ID token a principal authenticated with, in the store, until it would expire
   * anyway: every later request with it gets 401. False for an API key (nothing to revoke here;
   * keys are revoked by name).
   */
  async logout(principal: Principal): Promise<boolean> {
    if (principal.token === null) return false;
    for (const [key, seen] of this.#operatorsSeen)
      if (seen.principal.token?.id === principal.token.id) this.#operatorsSeen.delete(key);
    await this.#revocations.revoke(principal.token);
    return true;
  }

  async #byToken(token: string, key: string): Promise<Principal> {
    const { claims, builtIn } = await this.#verifiedToken(token, key);
    const handle = await this.#notRevoked(tokenHandle(token, claims, builtIn));
    if (builtIn) {
      // Built-in `sub` is the account id (signup sets subject = account_id). A valid signature
      // is not enough: the account must still exist (deleted accounts, a key that leaked).
      const account = await this.#accounts.get(claims.sub);
      if (!account || account.issuer !== BUILT_IN_ACCOUNT_ISSUER) {
        throw new AuthError('unknown_account', 'Invalid token: no such account');
      }
      return await this.#tokenPrincipal(account, handle);
    }
    return await this.#tokenPrincipal(await this.#externalAccount(this.#external!.issuer, claims), handle);
  }

  /** The token's checked claims: remembered for VERIFIED_TOKEN_MEMO_MS, never past its expiry. */
  async #verifiedToken(token: string, key: string): Promise<VerifiedToken> {
    const now = this.#clock();
    const seen = this.#verifiedTokens.get(key);
    if (seen && seen.until > now) return seen;
    this.#verifiedTokens.delete(key);
    const verified = await this.#verify(token);
    // An external provider may take a key out of its JWKS; from the next refetch on, the tokens
    // it signed must be refused (external-issuer.test.ts, key rotation), so those are checked every time.
    if (!verified.builtIn) return { ...verified, until: now };
    const expiresAt = tokenHandle(token, verified.claims, verified.builtIn).expires_at;
    const remembered = { ...verified, until: Math.min(now + VERIFIED_TOKEN_MEMO_MS, expiresAt) };
    if (this.#verifiedTokens.size >= MAX_VERIFIED_TOKENS) this.#verifiedTokens.clear();
    this.#verifiedTokens.set(key, remembered);
    return remembered;
  }

  async #verify(token: string): Promise<Omit<VerifiedToken, 'until'>> {
    if (token.length > MAX_TOKEN_LENGTH) throw new AuthError('malformed', 'Token too long');
    // The unverified `iss` only picks which keys to verify with; the verification then checks
    // `iss` again against that issuer (RFC 8725 §3.8), so a lie here just fails.
    const issuer = unverifiedIssuer(token);
    if (issuer === this.#builtIn.issuerUrl) return { claims: await this.#builtIn.verifyIdToken(token), builtIn: true };
    if (this.#external && issuer === this.#external.issuer)
      return { claims: await this.#external.verifyIdToken(token), builtIn: false };
    throw new AuthError('unknown_issuer', 'Invalid token: unknown issuer');
  }

  async #notRevoked(handle: TokenHandle): Promise<TokenHandle> {
    if (await this.#revocations.isRevoked(handle)) throw new AuthError('revoked', 'Invalid token: logged out');
    return handle;
  }

  async #tokenPrincipal(account: AccountRecord, token: TokenHandle): Promise<Principal> {
    return {
      account_id: account.account_id,
      email: account.email,
      via: 'token',
      scope: 'full',
      operator: await this.operators.isOperator(account, null),
      token,
    };
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
