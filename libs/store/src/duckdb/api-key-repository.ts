import type { ApiKeyRecord } from '@spoor/schemas';
import { StoreConflictError, type ApiKeyRepository } from '../store.js';
import { API_KEY_COLUMNS, rowToApiKey } from '../account-row.js';
import { isConstraintViolation, type DuckDbConnection, type DuckReader } from './duckdb-connection.js';

const COLUMNS = API_KEY_COLUMNS.join(', ');

/**
 * PRIMARY KEY key_hash makes findByHash an index lookup; UNIQUE (account_id, live_name) keeps
 * a name unique among an account's live keys, and revoke clears live_name so that the name
 * can be taken again (migrations.ts, step 2). Revoke and findByHash meet in one database, so
 * a revoke is visible to the next read on any connection once its statement has returned.
 */
export class DuckDbApiKeyRepository implements ApiKeyRepository {
  constructor(
    private readonly writer: DuckDbConnection,
    private readonly reader: DuckReader,
  ) {}

  async create(k: ApiKeyRecord): Promise<void> {
    try {
      await this.writer.run(`INSERT INTO api_keys (${COLUMNS}, live_name) VALUES ($1, $2, $3, $4, $5, $6, $7)`, [
        k.account_id,
        k.api_key_name,
        k.key_hash,
        k.scope,
        k.created_at,
        k.revoked_at,
        k.revoked_at === null ? k.api_key_name : null,
      ]);
    } catch (err) {
      if (isConstraintViolation(err)) throw new StoreConflictError(`API key ${k.api_key_name} exists`);
      throw err;
    }
  }

  async list(accountId: string): Promise<ApiKeyRecord[]> {
    const rows = await this.reader.all(
      `SELECT ${COLUMNS} FROM api_keys WHERE account_id = $1 AND revoked_at IS NULL
       ORDER BY created_at, api_key_name`,
      [accountId],
    );
    return rows.map(rowToApiKey);
  }

  async findByHash(keyHash: string): Promise<ApiKeyRecord | null> {
    const [row] = await this.reader.all(`SELECT ${COLUMNS} FROM api_keys WHERE key_hash = $1 AND revoked_at IS NULL`, [
      keyHash,
    ]);
    return row ? rowToApiKey(row) : null;
  }

  async revoke(accountId: string, apiKeyName: string, at: number): Promise<boolean> {
    const rows = await this.writer.all(
      `UPDATE api_keys SET revoked_at = $3, live_name = NULL
       WHERE account_id = $1 AND live_name = $2 RETURNING key_hash`,
      [accountId, apiKeyName, at],
    );
    return rows.length > 0;
  }
}
