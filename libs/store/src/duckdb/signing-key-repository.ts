import type { SigningKeyRecord } from '@spoor/schemas';
import type { SigningKeyRepository } from '../store.js';
import { SIGNING_KEY_COLUMNS, rowToSigningKey } from '../account-row.js';
import type { DuckDbConnection, DuckReader } from './duckdb-connection.js';

const COLUMNS = SIGNING_KEY_COLUMNS.join(', ');

export class DuckDbSigningKeyRepository implements SigningKeyRepository {
  constructor(
    private readonly writer: DuckDbConnection,
    private readonly reader: DuckReader,
  ) {}

  async list(): Promise<SigningKeyRecord[]> {
    return (await this.reader.all(`SELECT ${COLUMNS} FROM signing_keys ORDER BY created_at, kid`)).map(rowToSigningKey);
  }

  /** PRIMARY KEY kid: a kid already stored keeps its first keys (two processes may race to make one). */
  async create(k: SigningKeyRecord): Promise<void> {
    await this.writer.run(`INSERT INTO signing_keys (${COLUMNS}) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING`, [
      k.kid,
      k.private_jwk,
      k.public_jwk,
      k.created_at,
    ]);
  }
}
