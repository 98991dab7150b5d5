// The typed errors of @spoor/auth. Each one is an HttpError of the shared catalogue
// (libs/http/src/http-errors.ts), so the gateway's one error handler answers the documented
// body without a mapping table: 401 + `WWW-Authenticate: Bearer`, 409, 422.
import { HttpError, type ValidationDetail } from '@spoor/http';

/** Why a credential was refused; for logs and metrics, never needed to build the response. */
export type AuthFailureReason =
  | 'missing'
  | 'malformed'
  | 'invalid_token'
  | 'expired'
  | 'unknown_issuer'
  | 'issuer_unavailable'
  | 'invalid_api_key'
  | 'invalid_credentials'
  | 'unknown_account'
  | 'revoked';

/**
 * Any refused credential. The header is exactly `Bearer` as DESIGN.md (HTTP conventions) fixes
 * it; RFC 6750 §3 allows an `error="invalid_token"` parameter, which `reason` carries instead.
 */
export class AuthError extends HttpError {
  constructor(
    readonly reason: AuthFailureReason,
    detail: string,
    options?: { cause?: unknown },
  ) {
    super(401, 'unauthorized', detail, { 'WWW-Authenticate': 'Bearer' });
    this.name = 'AuthError';
    if (options?.cause !== undefined) this.cause = options.cause;
  }
}

/** Login refused. One message for unknown email and wrong password, so neither is revealed. */
export class InvalidCredentialsError extends AuthError {
  constructor() {
    super('invalid_credentials', 'Invalid email or password');
    this.name = 'InvalidCredentialsError';
  }
}

/** Signup with an email that already has an account: 409. */
export class EmailTakenError extends HttpError {
  constructor() {
    super(409, 'email_taken', 'An account with this email already exists');
    this.name = 'EmailTakenError';
  }
}

/** The account already has a live API key of that name: 409. */
export class ApiKeyNameTakenError extends HttpError {
  constructor(readonly apiKeyName: string) {
    super(409, 'api_key_name_taken', `An API key named ${apiKeyName} already exists`);
    this.name = 'ApiKeyNameTakenError';
  }
}

/**
 * A body field breaks a rule (password length, email form, key name): 422 in FastAPI's
 * HTTPValidationError shape, like the zod validation of the gateway.
 */
export class CredentialRuleError extends HttpError {
  constructor(field: string, msg: string, type: string) {
    const detail: ValidationDetail[] = [{ loc: ['body', field], msg, type }];
    super(422, 'validation_error', detail);
    this.name = 'CredentialRuleError';
  }
}
