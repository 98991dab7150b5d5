// API keys of an account: create (secret shown once), list (never the secret), revoke.
import type { ApiKeyScope } from '@spoor/schemas';
import { StoreConflictError, type ApiKeyRepository } from '@spoor/store';
import { apiKeyNameTaken } from './auth-errors.js';
import { generateApiKey, hashApiKey } from './api-key-codec.js';
import { API_KEY_NAME_PATTERN, checkApiKeyName } from './credential-rules.js';

export interface CreatedApiKey {
  api_key_name: string;
  /** The secret; only this response ever carries it. */
  api_key: string;
  scope: ApiKeyScope;
}

export interface ApiKeySummary {
  api_key_name: string;
  scope: ApiKeyScope;
  created_at: number;
}

export class ApiKeyService {
  constructor(
    private readonly apiKeys: ApiKeyRepository,
    private readonly clock: () => number = Date.now,
  ) {}

  /**
   * a 422 for a bad name, a 409 (api_key_name_taken) for a live duplicate.
   * Who may ask for which scope is the caller's decision (the gateway: operators only for
   * `operator`).
   */
  async create(accountId: string, name: string, scope: ApiKeyScope = 'full'): Promise<CreatedApiKey> {
    const apiKeyName = checkApiKeyName(name);
    const apiKey = generateApiKey();
    try {
      await this.apiKeys.create({
        account_id: accountId,
        api_key_name: apiKeyName,
        key_hash: hashApiKey(apiKey),
        scope,
        created_at: this.clock(),
        revoked_at: null,
      });
    } catch (err) {
      if (err instanceof StoreConflictError) throw apiKeyNameTaken(apiKeyName);
      throw err;
    }
    return { api_key_name: apiKeyName, api_key: apiKey, scope };
  }

  /** Live keys, oldest first; built field by field so no hash can slip into a response. */
  async list(accountId: string): Promise<ApiKeySummary[]> {
    const records = await this.apiKeys.list(accountId);
    return records.map((r) => ({ api_key_name: r.api_key_name, scope: r.scope, created_at: r.created_at }));
  }

  /** False when the account has no live key of that name (the gateway answers 404). */
  async revoke(accountId: string, name: string): Promise<boolean> {
    // A name that breaks the rules cannot exist; no need to ask the store.
    if (!API_KEY_NAME_PATTERN.test(name)) return false;
    return this.apiKeys.revoke(accountId, name, this.clock());
  }
}
