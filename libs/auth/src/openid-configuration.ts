// The built-in issuer's OpenID Provider Metadata (OpenID Connect Discovery 1.0 §3), served at
// `${issuer}/.well-known/openid-configuration` (§4). It is truthful about what Spoor does: the
// only way to get a token is `POST /v1/auth/login` (or signup), which answers an ID token
// directly; there is no token endpoint, no userinfo endpoint, no client registration.

export interface OpenIdConfiguration {
  issuer: string;
  authorization_endpoint: string;
  jwks_uri: string;
  response_types_supported: string[];
  grant_types_supported: string[];
  subject_types_supported: string[];
  id_token_signing_alg_values_supported: string[];
  scopes_supported: string[];
  claims_supported: string[];
  /** Spoor extension (Discovery §3 allows additional members): where accounts are made. */
  spoor_signup_endpoint: string;
}

export function openIdConfiguration(issuer: string, alg: string): OpenIdConfiguration {
  return {
    // §4.3: MUST be identical to the `iss` of the tokens and to the discovery URL's prefix.
    issuer,
    // §3 makes this REQUIRED. The login endpoint is the closest thing Spoor has: it
    // authenticates the end user and answers the ID token. It takes a JSON POST, not an
    // OAuth redirect, which is why only `id_token` is listed below.
    authorization_endpoint: `${issuer}/v1/auth/login`,
    jwks_uri: `${issuer}/.well-known/jwks.json`,
    // §3: REQUIRED. The ID token is the whole answer; no code, no access token.
    response_types_supported: ['id_token'],
    // §3: the default ["authorization_code", "implicit"] would claim a code flow we lack, so
    // the member is stated. No token endpoint is listed, which §3 allows when only the
    // implicit grant is used.
    grant_types_supported: ['implicit'],
    // `sub` is the account id, the same for every relying party (OpenID Connect Core §8).
    subject_types_supported: ['public'],
    id_token_signing_alg_values_supported: [alg],
    scopes_supported: ['openid', 'email'],
    claims_supported: ['iss', 'aud', 'sub', 'email', 'iat', 'nbf', 'exp'],
    spoor_signup_endpoint: `${issuer}/v1/auth/signup`,
  };
}
