// Who is an operator (DESIGN.md, "Operators"; docs/security.md): the accounts SPOOR_ADMIN_EMAILS
// names, or, while it names none, the install's first account (issue 45: a fresh install's owner
// sees health at once). An ID token of such an account is an operator's; an API key is only
// when it was made with scope `operator` *and* its account is still one, so taking an email off
// the list takes the power from every key of that account at the next request.
import type { ApiKeyScope } from '@spoor/schemas';

/** The operator's part of an account. */
export interface OperatorCandidate {
  account_id: string;
  email: string | null;
}

export class OperatorPolicy {
  readonly #emails: ReadonlySet<string>;
  readonly #firstAccount: (() => Promise<string | null>) | null;
  /** Once known it never changes (installOperator keeps it even when that account is deleted). */
  #first: string | null = null;

  /**
   * `firstAccount` answers the install's first account's id (null while there is none); asked
   * only while SPOOR_ADMIN_EMAILS is empty, and remembered once it answers an id.
   */
  constructor(adminEmails: readonly string[] = [], firstAccount?: () => Promise<string | null>) {
    this.#emails = new Set(adminEmails.map((e) => e.trim().toLowerCase()).filter(Boolean));
    this.#firstAccount = firstAccount ?? null;
  }

  /** SPOOR_ADMIN_EMAILS names accounts: the list decides, the first account is no operator unless named. */
  get byList(): boolean {
    return this.#emails.size > 0;
  }

  async isOperatorAccount(account: OperatorCandidate): Promise<boolean> {
    if (this.byList) return account.email !== null && this.#emails.has(account.email.toLowerCase());
    return (await this.#firstAccountId()) === account.account_id;
  }

  /** `scope` null: an ID token. */
  async isOperator(account: OperatorCandidate, scope: ApiKeyScope | null): Promise<boolean> {
    return (scope === null || scope === 'operator') && (await this.isOperatorAccount(account));
  }

  async #firstAccountId(): Promise<string | null> {
    if (this.#first === null && this.#firstAccount) this.#first = await this.#firstAccount();
    return this.#first;
  }
}
