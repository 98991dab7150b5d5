/**
 * An account: from the built-in issuer (issuer `spoor`, subject = account_id, with an email and
 * a password hash) or from an external OIDC issuer (its `iss` and `sub`).
 */
export interface AccountRecord {
  account_id: string;
  email: string | null;
  /** scrypt hash in PHC-like form; null for accounts of external issuers. */
  password_hash: string | null;
  issuer: string;
  subject: string;
  created_at: number;
}

/**
 * What an API key may do: `full` everything its account may (the default), `read` only reading
 * operations (GET, and logging out), `operator` everything plus the system-wide operator
 * endpoints, while its account is named by SPOOR_ADMIN_EMAILS.
 */
export const API_KEY_SCOPES = ['full', 'read', 'operator'] as const;
export type ApiKeyScope = (typeof API_KEY_SCOPES)[number];

export interface ApiKeyRecord {
  account_id: string;
  api_key_name: string;
  /** SHA-256 (hex) of the secret; the secret itself is never stored. */
  key_hash: string;
  scope: ApiKeyScope;
  created_at: number;
  revoked_at: number | null;
}

/**
 * An ID token revoked by `POST /v1/auth/logout`: `token_id` is `jti:<jti>` for the built-in
 * issuer's tokens, else `sha256:<hex of the token>`. Kept until the token would expire anyway.
 */
export interface RevokedToken {
  token_id: string;
  /** When the token stops being accepted anyway (its `exp` plus the clock leeway), ms. */
  expires_at: number;
  revoked_at: number;
}

/** An ES256 signing key of the built-in issuer, as JWKs (JSON text). */
export interface SigningKeyRecord {
  kid: string;
  private_jwk: string;
  public_jwk: string;
  created_at: number;
}

/**
 * A tag on a session from one source: `manual` (POST /v1/sessions/{id}/tags) or the rule_id of
 * the classification rule that applied it. A (project, session, tag, source) is one fact; the
 * write with the greatest `changed_at` decides whether it stands (`removed: false`) or was taken
 * back. A session carries a tag while any of its sources stands.
 */
export interface SessionTag {
  project_id: string;
  session_id: string;
  tag: string;
  source: string;
  /** When the tag was applied: for rule tags the session's last_event_at when it matched. */
  tagged_at: number;
  removed: boolean;
  /** Version of this fact: the write time. */
  changed_at: number;
}
