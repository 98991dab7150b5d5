// Who is an operator (DESIGN.md, "Operators"): the accounts SPOOR_ADMIN_EMAILS names. An ID
// token of such an account is an operator's; an API key is only when it was made with scope
// `operator` *and* its account is still named, so taking an email off the list takes the
// power from every key of that account at the next request.
import type { ApiKeyScope } from '@spoor/schemas';

export class OperatorPolicy {
  readonly #emails: ReadonlySet<string>;

  constructor(adminEmails: readonly string[] = []) {
    this.#emails = new Set(adminEmails.map((e) => e.trim().toLowerCase()).filter(Boolean));
  }

  isOperatorAccount(email: string | null): boolean {
    return email !== null && this.#emails.has(email.toLowerCase());
  }

  /** `scope` null: an ID token. */
  isOperator(email: string | null, scope: ApiKeyScope | null): boolean {
    return this.isOperatorAccount(email) && (scope === null || scope === 'operator');
  }
}
