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

export interface ApiKeyRecord {
  account_id: string;
  api_key_name: string;
  /** SHA-256 (hex) of the secret; the secret itself is never stored. */
  key_hash: string;
  created_at: number;
  revoked_at: number | null;
}

/** An ES256 signing key of the built-in issuer, as JWKs (JSON text). */
export interface SigningKeyRecord {
  kid: string;
  private_jwk: string;
  public_jwk: string;
  created_at: number;
}

export interface SessionTag {
  project_id: string;
  session_id: string;
  tag: string;
  tagged_at: number;
}
