import type { SigningKeyRecord } from '@spoor/schemas';
import type { SigningKeyRepository } from '../store.js';
import { SIGNING_KEY_COLUMNS, rowToSigningKey } from '../account-row.js';
import type { ClickHouseConnection } from './clickhouse-connection.js';

const COLUMNS = SIGNING_KEY_COLUMNS.join(', ');

export class ClickHouseSigningKeyRepository implements SigningKeyRepository {
  constructor(private readonly ch: ClickHouseConnection) {}

  async list(): Promise<SigningKeyRecord[]> {
    const rows = await this.ch.rows(
      `SELECT ${COLUMNS} FROM ${this.ch.table('signing_keys')} FINAL ORDER BY created_at, kid`,
    );
    return rows.map(rowToSigningKey);
  }

  /** ORDER BY kid with a first-insert-wins version: a kid written twice keeps its first keys. */
  async create(k: SigningKeyRecord): Promise<void> {
    await this.ch.insert('signing_keys', [
      { kid: k.kid, private_jwk: k.private_jwk, public_jwk: k.public_jwk, created_at: k.created_at },
    ]);
  }
}
