import type { RevokedToken } from '@spoor/schemas';
import type { TokenRevocationRepository } from '../store.js';
import type { ClickHouseConnection } from './clickhouse-connection.js';

/** ORDER BY token_id with a TTL past the token's expiry (migrations.ts, step 5). */
export class ClickHouseRevokedTokenRepository implements TokenRevocationRepository {
  constructor(private readonly ch: ClickHouseConnection) {}

  async revoke(t: RevokedToken): Promise<void> {
    await this.ch.insert('revoked_tokens', [
      { token_id: t.token_id, expires_at: t.expires_at, revoked_at: t.revoked_at },
    ]);
  }

  /** Any row of the token answers, merged or not: no FINAL needed. */
  async isRevoked(tokenId: string, now: number): Promise<boolean> {
    const rows = await this.ch.rows(
      `SELECT 1 AS hit FROM ${this.ch.table('revoked_tokens')}
       WHERE token_id = {token_id:String} AND expires_at >= {now:Int64} LIMIT 1`,
      { token_id: tokenId, now },
    );
    return rows.length > 0;
  }
}
