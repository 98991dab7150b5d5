import type { RevokedToken } from '@spoor/schemas';
import type { TokenRevocationRepository } from '../store.js';
import type { DuckDbConnection, DuckReader } from './duckdb-connection.js';

/** PRIMARY KEY token_id: isRevoked is an index lookup (migrations.ts, step 5). */
export class DuckDbRevokedTokenRepository implements TokenRevocationRepository {
  constructor(
    private readonly writer: DuckDbConnection,
    private readonly reader: DuckReader,
  ) {}

  /** Also forgets lapsed revocations: logouts are rare, so the table stays the size of the live ones. */
  async revoke(t: RevokedToken): Promise<void> {
    await this.writer.run('DELETE FROM revoked_tokens WHERE expires_at < $1', [t.revoked_at]);
    await this.writer.run(
      'INSERT INTO revoked_tokens (token_id, expires_at, revoked_at) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING',
      [t.token_id, t.expires_at, t.revoked_at],
    );
  }

  async isRevoked(tokenId: string, now: number): Promise<boolean> {
    const rows = await this.reader.all('SELECT 1 AS hit FROM revoked_tokens WHERE token_id = $1 AND expires_at >= $2', [
      tokenId,
      now,
    ]);
    return rows.length > 0;
  }
}
