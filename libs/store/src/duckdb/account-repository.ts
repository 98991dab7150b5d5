import type { AccountRecord } from '@spoor/schemas';
import { StoreConflictError, type AccountRepository } from '../store.js';
import { ACCOUNT_COLUMNS, builtInEmail, normalizeAccount, normalizeEmail, rowToAccount } from '../account-row.js';
import { isConstraintViolation, type DuckDbConnection, type Row, type DuckReader } from './duckdb-connection.js';

const COLUMNS = ACCOUNT_COLUMNS.join(', ');

/**
 * Uniqueness is the table's: PRIMARY KEY account_id, UNIQUE (issuer, subject) and UNIQUE
 * builtin_email (see migrations.ts, step 2). Writes are serialised on the writer connection,
 * so of two concurrent creates the second meets the first's row and fails on the constraint.
 */
export class DuckDbAccountRepository implements AccountRepository {
  constructor(
    private readonly writer: DuckDbConnection,
    private readonly reader: DuckReader,
  ) {}

  async create(account: AccountRecord): Promise<void> {
    const a = normalizeAccount(account);
    try {
      await this.writer.run(`INSERT INTO accounts (${COLUMNS}, builtin_email) VALUES ($1, $2, $3, $4, $5, $6, $7)`, [
        a.account_id,
        a.email,
        a.password_hash,
        a.issuer,
        a.subject,
        a.created_at,
        builtInEmail(a),
      ]);
    } catch (err) {
      if (isConstraintViolation(err)) {
        throw new StoreConflictError(`account ${a.account_id} (email or ${a.issuer} subject) exists`);
      }
      throw err;
    }
  }

  async oldest(): Promise<AccountRecord | null> {
    return first(await this.reader.all(`SELECT ${COLUMNS} FROM accounts ORDER BY created_at, account_id LIMIT 1`));
  }

  async get(accountId: string): Promise<AccountRecord | null> {
    return first(await this.reader.all(`SELECT ${COLUMNS} FROM accounts WHERE account_id = $1`, [accountId]));
  }

  async findByEmail(email: string): Promise<AccountRecord | null> {
    return first(
      await this.reader.all(`SELECT ${COLUMNS} FROM accounts WHERE builtin_email = $1`, [normalizeEmail(email)]),
    );
  }

  async findBySubject(issuer: string, subject: string): Promise<AccountRecord | null> {
    return first(
      await this.reader.all(`SELECT ${COLUMNS} FROM accounts WHERE issuer = $1 AND subject = $2`, [issuer, subject]),
    );
  }
}

function first(rows: Row[]): AccountRecord | null {
  const [row] = rows;
  return row ? rowToAccount(row) : null;
}
