import type { AccountRecord } from '@spoor/schemas';
import { StoreConflictError, type AccountRepository } from '../store.js';
import { toStr } from '../column-values.js';
import {
  ACCOUNT_COLUMNS,
  BUILT_IN_ISSUER,
  builtInEmail,
  normalizeAccount,
  normalizeEmail,
  rowToAccount,
} from '../account-row.js';
import type { ClickHouseConnection, Params } from './clickhouse-connection.js';

const COLUMNS = ACCOUNT_COLUMNS.join(', ');

export class ClickHouseAccountRepository implements AccountRepository {
  constructor(private readonly ch: ClickHouseConnection) {}

  /**
   * No unique constraints, so as for projects: check, insert, read back the survivor (the
   * earliest insert of a key; see migrations.ts). A built-in account first claims its email in
   * account_emails and only writes the account once the claim survived, so a losing signup
   * leaves no account behind. What remains of the race: two inserts in the same microsecond
   * or a server clock stepping back (the later insert survives, and the earlier caller may
   * already have read itself back as the winner), and two creates of one (issuer, subject)
   * with different emails, where the loser's email claim stays behind pointing at no account
   * (findByEmail re-checks the account, but the email stays taken). Built-in subjects are
   * fresh account ids, so the last needs a caller that reuses an id. account_id itself is only
   * checked, not claimed: ids are random.
   */
  async create(account: AccountRecord): Promise<void> {
    const a = normalizeAccount(account);
    const conflict = () => new StoreConflictError(`account ${a.account_id} (email or ${a.issuer} subject) exists`);
    if ((await this.findBySubject(a.issuer, a.subject)) || (await this.get(a.account_id))) throw conflict();
    const email = builtInEmail(a);
    if (email !== null) {
      if ((await this.emailOwner(email)) !== null) throw conflict();
      await this.ch.insert('account_emails', [{ email, account_id: a.account_id }]);
      if ((await this.emailOwner(email)) !== a.account_id) throw conflict();
    }
    await this.ch.insert('accounts', [
      {
        account_id: a.account_id,
        email: a.email,
        password_hash: a.password_hash,
        issuer: a.issuer,
        subject: a.subject,
        created_at: a.created_at,
      },
    ]);
    const survivor = await this.findBySubject(a.issuer, a.subject);
    if (survivor?.account_id !== a.account_id) throw conflict();
  }

  get(accountId: string): Promise<AccountRecord | null> {
    return this.one('account_id = {account_id:String}', { account_id: accountId });
  }

  findByEmail(email: string): Promise<AccountRecord | null> {
    return this.one(
      `issuer = {issuer:String} AND email = {email:String}
       AND account_id IN (SELECT account_id FROM ${this.ch.table('account_emails')} FINAL WHERE email = {email:String})`,
      { issuer: BUILT_IN_ISSUER, email: normalizeEmail(email) },
    );
  }

  async oldest(): Promise<AccountRecord | null> {
    const [row] = await this.ch.rows(
      `SELECT ${COLUMNS} FROM ${this.ch.table('accounts')} FINAL ORDER BY created_at, account_id LIMIT 1`,
    );
    return row ? rowToAccount(row) : null;
  }

  findBySubject(issuer: string, subject: string): Promise<AccountRecord | null> {
    return this.one('issuer = {issuer:String} AND subject = {subject:String}', { issuer, subject });
  }

  private async emailOwner(email: string): Promise<string | null> {
    const [row] = await this.ch.rows(
      `SELECT account_id FROM ${this.ch.table('account_emails')} FINAL WHERE email = {email:String}`,
      { email },
    );
    return row ? toStr(row.account_id) : null;
  }

  /** Highest version first: of two rows sharing an account_id (never expected), the earliest. */
  private async one(where: string, params: Params): Promise<AccountRecord | null> {
    const [row] = await this.ch.rows(
      `SELECT ${COLUMNS} FROM ${this.ch.table('accounts')} FINAL WHERE ${where} ORDER BY version DESC LIMIT 1`,
      params,
    );
    return row ? rowToAccount(row) : null;
  }
}
