// Row shapes of the accounts, API keys and signing keys tables, shared by both backends (see
// event-row.ts). Extra key columns (generation, version, builtin_email, live_name) exist in
// the tables only and never reach a record.
import {
  API_KEY_SCOPES,
  type AccountRecord,
  type ApiKeyRecord,
  type ApiKeyScope,
  type SigningKeyRecord,
} from '@spoor/schemas';
import { toInt, toIntOrNull, toStr, toStrOrNull } from './column-values.js';

/** The issuer of accounts made by `POST /v1/auth/signup` (AccountRecord, schemas/accounts.ts). */
export const BUILT_IN_ISSUER = 'spoor';

export const ACCOUNT_COLUMNS = ['account_id', 'email', 'password_hash', 'issuer', 'subject', 'created_at'] as const;
export const API_KEY_COLUMNS = ['account_id', 'api_key_name', 'key_hash', 'scope', 'created_at', 'revoked_at'] as const;
export const SIGNING_KEY_COLUMNS = ['kid', 'private_jwk', 'public_jwk', 'created_at'] as const;

/**
 * Emails are stored lowercased and compared lowercased. RFC 5321 §2.4 lets a mailbox's local
 * part be case-sensitive, but no provider a user signs up with treats it so, and
 * "Ann@x.org" and "ann@x.org" being two accounts is the surprise to avoid.
 */
export function normalizeEmail(email: string): string {
  return email.toLowerCase();
}

export function normalizeAccount(a: AccountRecord): AccountRecord {
  return { ...a, email: a.email === null ? null : normalizeEmail(a.email) };
}

/** The email under which an account must be unique: built-in accounts only, else null. */
export function builtInEmail(a: AccountRecord): string | null {
  return a.issuer === BUILT_IN_ISSUER && a.email !== null ? normalizeEmail(a.email) : null;
}

export function rowToAccount(r: Record<string, unknown>): AccountRecord {
  return {
    account_id: toStr(r.account_id),
    email: toStrOrNull(r.email),
    password_hash: toStrOrNull(r.password_hash),
    issuer: toStr(r.issuer),
    subject: toStr(r.subject),
    created_at: toInt(r.created_at),
  };
}

export function rowToApiKey(r: Record<string, unknown>): ApiKeyRecord {
  return {
    account_id: toStr(r.account_id),
    api_key_name: toStr(r.api_key_name),
    key_hash: toStr(r.key_hash),
    scope: toScope(r.scope),
    created_at: toInt(r.created_at),
    revoked_at: toIntOrNull(r.revoked_at),
  };
}

export function rowToSigningKey(r: Record<string, unknown>): SigningKeyRecord {
  return {
    kid: toStr(r.kid),
    private_jwk: toStr(r.private_jwk),
    public_jwk: toStr(r.public_jwk),
    created_at: toInt(r.created_at),
  };
}

/** Keys made before scopes existed read as `full` (the migration's default says the same). */
function toScope(v: unknown): ApiKeyScope {
  return (API_KEY_SCOPES as readonly unknown[]).includes(v) ? (v as ApiKeyScope) : 'full';
}
