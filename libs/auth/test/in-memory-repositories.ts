// Small in-memory implementations of the three store interfaces @spoor/auth uses. They follow
// the documented contracts of libs/store/src/store.ts (conflicts, live keys, oldest first);
// the real backends are held to the same contracts by the store's own contract tests.
import {
  StoreConflictError,
  type AccountRepository,
  type ApiKeyRepository,
  type SigningKeyRepository,
  type TokenRevocationRepository,
} from '@spoor/store';
import type { AccountRecord, ApiKeyRecord, RevokedToken, SigningKeyRecord } from '@spoor/schemas';

export class InMemoryAccounts implements AccountRepository {
  readonly rows: AccountRecord[] = [];
  async create(a: AccountRecord): Promise<void> {
    const emailTaken =
      a.issuer === 'spoor' &&
      a.email !== null &&
      this.rows.some((r) => r.issuer === 'spoor' && r.email?.toLowerCase() === a.email?.toLowerCase());
    const subjectTaken = this.rows.some((r) => r.issuer === a.issuer && r.subject === a.subject);
    if (emailTaken || subjectTaken || this.rows.some((r) => r.account_id === a.account_id)) {
      throw new StoreConflictError('account exists');
    }
    this.rows.push({ ...a });
  }
  async get(accountId: string): Promise<AccountRecord | null> {
    return this.rows.find((r) => r.account_id === accountId) ?? null;
  }
  async oldest(): Promise<AccountRecord | null> {
    const sorted = [...this.rows].sort(
      (a, b) => a.created_at - b.created_at || a.account_id.localeCompare(b.account_id),
    );
    return sorted[0] ?? null;
  }
  async findByEmail(email: string): Promise<AccountRecord | null> {
    return this.rows.find((r) => r.issuer === 'spoor' && r.email === email.toLowerCase()) ?? null;
  }
  async findBySubject(issuer: string, subject: string): Promise<AccountRecord | null> {
    return this.rows.find((r) => r.issuer === issuer && r.subject === subject) ?? null;
  }
}

export class InMemoryApiKeys implements ApiKeyRepository {
  readonly rows: ApiKeyRecord[] = [];
  async create(k: ApiKeyRecord): Promise<void> {
    const live = (r: ApiKeyRecord) => r.revoked_at === null;
    if (this.rows.some((r) => live(r) && r.account_id === k.account_id && r.api_key_name === k.api_key_name)) {
      throw new StoreConflictError('api key name taken');
    }
    this.rows.push({ ...k });
  }
  async list(accountId: string): Promise<ApiKeyRecord[]> {
    return this.rows
      .filter((r) => r.account_id === accountId && r.revoked_at === null)
      .sort((a, b) => a.created_at - b.created_at);
  }
  async findByHash(keyHash: string): Promise<ApiKeyRecord | null> {
    return this.rows.find((r) => r.key_hash === keyHash && r.revoked_at === null) ?? null;
  }
  async revoke(accountId: string, apiKeyName: string, at: number): Promise<boolean> {
    const row = this.rows.find(
      (r) => r.account_id === accountId && r.api_key_name === apiKeyName && r.revoked_at === null,
    );
    if (!row) return false;
    row.revoked_at = at;
    return true;
  }
}

export class InMemorySigningKeys implements SigningKeyRepository {
  readonly rows: SigningKeyRecord[] = [];
  listCalls = 0;
  async list(): Promise<SigningKeyRecord[]> {
    this.listCalls += 1;
    // Yield like a real database would, so concurrent callers really interleave.
    await new Promise((resolve) => setImmediate(resolve));
    return [...this.rows].sort((a, b) => a.created_at - b.created_at);
  }
  async create(k: SigningKeyRecord): Promise<void> {
    await new Promise((resolve) => setImmediate(resolve));
    if (!this.rows.some((r) => r.kid === k.kid)) this.rows.push({ ...k });
  }
}

export class InMemoryRevokedTokens implements TokenRevocationRepository {
  readonly rows: RevokedToken[] = [];
  async revoke(t: RevokedToken): Promise<void> {
    if (!this.rows.some((r) => r.token_id === t.token_id)) this.rows.push({ ...t });
  }
  async isRevoked(tokenId: string, now: number): Promise<boolean> {
    return this.rows.some((r) => r.token_id === tokenId && r.expires_at >= now);
  }
}

export function inMemoryRepositories() {
  return {
    accounts: new InMemoryAccounts(),
    apiKeys: new InMemoryApiKeys(),
    signingKeys: new InMemorySigningKeys(),
    revokedTokens: new InMemoryRevokedTokens(),
  };
}
