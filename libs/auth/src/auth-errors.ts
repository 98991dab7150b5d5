// The errors of @spoor/auth, all from the one error catalogue (libs/schemas' error-catalogue.ts),
// so the gateway's one error handler answers the documented body without a mapping table:
// 401 + `WWW-Authenticate: Bearer`, 409, 422. AuthError only adds why a credential was refused.
import { HttpError, createError } from '@spoor/http';

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
 * Any refused credential: the catalogue's `unauthorized` (401, `WWW-Authenticate: Bearer`) with
 * the reason for logs and tests. RFC 6750 §3 allows an `error="invalid_token"` parameter, which
 * `reason` carries instead, as the header is exactly `Bearer` (DESIGN.md, HTTP conventions).
 */
export class AuthError extends HttpError {
  constructor(
    readonly reason: AuthFailureReason,
    detail: string,
    options?: { cause?: unknown },
  ) {
    super('unauthorized', detail, {}, options);
    this.name = 'AuthError';
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
export const emailTaken = () => createError('email_taken');

/** The account already has a live API key of that name: 409. */
export const apiKeyNameTaken = (apiKeyName: string) => createError('api_key_name_taken', apiKeyName);

/**
 * A body field breaks a rule (password length, email form, key name): 422 in FastAPI's
 * HTTPValidationError shape, like the zod validation of the gateway.
 */
export const credentialRuleError = (field: string, msg: string, type: string) =>
  createError('validation_error', [{ loc: ['body', field], msg, type }]);
