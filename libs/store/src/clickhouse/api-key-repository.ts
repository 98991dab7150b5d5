import type { ApiKeyRecord } from '@spoor/schemas';
import { StoreConflictError, type ApiKeyRepository } from '../store.js';
import { toInt, toStr } from '../column-values.js';
import { API_KEY_COLUMNS, rowToApiKey } from '../account-row.js';
import type { ClickHouseConnection, Row } from './clickhouse-connection.js';

const COLUMNS = API_KEY_COLUMNS.join(', ');
const NAME = 'account_id = {account_id:String} AND api_key_name = {api_key_name:String}';

/** Keys and read paths: migrations.ts, step 2. */
export class ClickHouseApiKeyRepository implements ApiKeyRepository {
  constructor(private readonly ch: ClickHouseConnection) {}

  /**
   * Claims the generation after the name's newest key (conflict when that one is live), then
   * reads the claim back: of two racers for one generation the earliest insert survives and
   * the other throws. Same-microsecond inserts and clock steps remain, as for projects.
   */
  async create(k: ApiKeyRecord): Promise<void> {
    const conflict = () => new StoreConflictError(`API key ${k.api_key_name} exists`);
    const name = { account_id: k.account_id, api_key_name: k.api_key_name };
    const [newest] = await this.select(`${NAME} ORDER BY generation DESC LIMIT 1`, name);
    if (newest && newest.revoked_at === null) throw conflict();
    const generation = newest ? toInt(newest.generation) + 1 : 0;
    await this.ch.insert('api_keys', [{ ...k, generation }]);
    const [survivor] = await this.select(`${NAME} AND generation = {generation:UInt32}`, { ...name, generation });
    if (survivor === undefined || toStr(survivor.key_hash) !== k.key_hash) throw conflict();
  }

  async list(accountId: string): Promise<ApiKeyRecord[]> {
    const rows = await this.select(
      'account_id = {account_id:String} AND revoked_at IS NULL ORDER BY created_at, api_key_name',
      { account_id: accountId },
    );
    return rows.map(rowToApiKey);
  }

  async findByHash(keyHash: string): Promise<ApiKeyRecord | null> {
    const [row] = await this.select(
      `(account_id, api_key_name, generation) IN (
         SELECT account_id, api_key_name, generation FROM ${this.ch.table('api_keys_by_hash')}
         WHERE key_hash = {key_hash:String})
       AND key_hash = {key_hash:String} AND revoked_at IS NULL`,
      { key_hash: keyHash },
    );
    return row ? rowToApiKey(row) : null;
  }

  /** Writes the live row again with revoked_at and version + 1, which outranks it under FINAL. */
  async revoke(accountId: string, apiKeyName: string, at: number): Promise<boolean> {
    const [live] = await this.select(`${NAME} AND revoked_at IS NULL ORDER BY generation DESC LIMIT 1`, {
      account_id: accountId,
      api_key_name: apiKeyName,
    });
    if (!live) return false;
    await this.ch.insert('api_keys', [{ ...live, revoked_at: at, version: toInt(live.version) + 1 }]);
    return true;
  }

  /** WHERE runs after FINAL, so revoked_at is the surviving version's. */
  private select(whereAndOrder: string, params: Record<string, unknown>): Promise<Row[]> {
    return this.ch.rows(
      `SELECT ${COLUMNS}, generation, version FROM ${this.ch.table('api_keys')} FINAL WHERE ${whereAndOrder}`,
      params,
    );
  }
}
