// @spoor/auth: the built-in OpenID issuer, credential verification and API keys.
export {
  AuthError,
  InvalidCredentialsError,
  emailTaken,
  apiKeyNameTaken,
  credentialRuleError,
  type AuthFailureReason,
} from './auth-errors.js';
export {
  BuiltInIssuer,
  BUILT_IN_ACCOUNT_ISSUER,
  type BuiltInIssuerOptions,
  type IssuedToken,
} from './built-in-issuer.js';
export type { OpenIdConfiguration } from './openid-configuration.js';
export { Authenticator, VERIFIED_TOKEN_MEMO_MS, type AuthenticatorOptions, type Principal } from './authenticator.js';
export type { ExternalIssuerOptions } from './external-issuer.js';
export { OperatorPolicy } from './operator-policy.js';
export type { TokenHandle } from './token-revocation.js';
export { ApiKeyService, type CreatedApiKey, type ApiKeySummary } from './api-key-service.js';
export { hashPassword, verifyPassword } from './password-hasher.js';
export {
  checkPassword,
  checkApiKeyName,
  normalizeEmail,
  PASSWORD_MIN_LENGTH,
  PASSWORD_MAX_LENGTH,
} from './credential-rules.js';
export { CLOCK_TOLERANCE_SECONDS } from './token-policy.js';
