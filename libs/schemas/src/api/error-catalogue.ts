// The one error catalogue (CONVENTIONS.md; issue 20): every error the API answers has a stable
// code here with its status, its message and what the OpenAPI document says of it. Modelled on
// fastify's `createError(code, message, statusCode)`: a message's `%s` take the arguments of
// `createError` (libs/http/src/http-errors.ts) in order. Codes never reach the wire — the body is
// `{"detail": message}` (DESIGN.md, HTTP conventions) — so they can be as precise as a log or a
// test needs, and each operation names the codes it may answer (`Operation.failures`), from
// which its documented error responses are generated (`describeFailures`).

export interface ErrorEntry {
  status: number;
  /**
   * The body's `detail`, each `%s` filled by one argument; `null` for the 422 of a validation
   * failure, whose detail is FastAPI's list of `{loc, msg, type}` items.
   */
  message: string | null;
  /** What the OpenAPI document says of this failure: a short phrase, never containing "; or ". */
  description: string;
  /** Headers every answer of this code carries; each value is set by whoever creates it, except fixed ones. */
  headers?: Readonly<Record<string, string | null>>;
}

export const ERROR_CATALOGUE = {
  malformed_json: { status: 400, message: 'Malformed JSON: %s', description: 'Malformed JSON' },
  malformed_path: {
    status: 400,
    message: 'Malformed percent-encoding in the path',
    description: 'Malformed percent-encoding in the path',
  },
  malformed_request: { status: 400, message: 'Malformed HTTP request', description: 'Malformed HTTP request' },
  request_aborted: { status: 400, message: 'Request aborted', description: 'The client stopped sending the body' },
  api_key_logout: {
    status: 400,
    message: 'Logout revokes an ID token; an API key is revoked with DELETE /v1/users/apikey/{api_key_name}',
    description: 'The credential is an API key, which DELETE /v1/users/apikey/{api_key_name} revokes',
  },
  // RFC 6750 §3: the header is exactly `Bearer` (DESIGN.md, HTTP conventions).
  unauthorized: {
    status: 401,
    message: '%s',
    description: 'Missing or invalid credentials',
    headers: { 'WWW-Authenticate': 'Bearer' },
  },
  domain_unverified: {
    status: 403,
    message: 'Domain of %s is not verified; create the TXT record and call POST /v1/users/projects/verify',
    description: "The project's domain is not verified yet",
  },
  raw_fields_unverified: {
    status: 403,
    message:
      '%s reads %s: raw event fields of %s, whose domain is not verified; logic may read them once it is (create the TXT record and call POST /v1/users/projects/verify)',
    description: 'Logic that reads raw event fields of a domain not verified yet',
  },
  read_only_key: {
    status: 403,
    message: 'This API key has scope "read" and may only read; use an API key with scope "full" or an ID token',
    description: 'A read-only API key (scope "read")',
  },
  operators_only: {
    status: 403,
    message:
      'Operators only: an ID token of an account named in SPOOR_ADMIN_EMAILS (while it names none, of the install\'s first account), or such an account\'s API key with scope "operator"',
    description: 'Not an operator (SPOOR_ADMIN_EMAILS, else the first account, or an API key with scope "operator")',
  },
  // Issue 45: a member below the operation's role; anyone not a member gets not_found instead.
  role_required: {
    status: 403,
    message: 'This needs the %s role on the project; yours is %s',
    description: "The caller's role on the project is below the operation's (docs/security.md, Roles)",
  },
  account_deletion_needs_token: {
    status: 403,
    message: 'Deleting an account needs an ID token (sign in); an API key cannot delete the account it belongs to',
    description: 'DELETE /v1/users/account called with an API key',
  },
  operator_key_refused: {
    status: 403,
    message:
      'Only an operator may create an API key with scope "operator" (SPOOR_ADMIN_EMAILS, else the install\'s first account)',
    description: 'An API key with scope "operator" asked by a non-operator',
  },
  origin_mismatch: {
    status: 403,
    message: "Origin %s does not match the project's origin",
    description: "Browser Origin differs from the project's origin",
  },
  not_found: { status: 404, message: '%s', description: 'Unknown, or belongs to another account' },
  unknown_project: {
    status: 404,
    message: '%s',
    description: 'Unknown project (or one registered at several origins, sent without origin)',
  },
  route_not_found: { status: 404, message: 'Not Found', description: 'No such path' },
  export_expired: {
    status: 404,
    message: 'Export expired; start a new one',
    description: 'The export expired (24 hours after it was written)',
  },
  method_not_allowed: {
    status: 405,
    message: 'Method Not Allowed',
    description: 'The path has no such method (see Allow)',
    headers: { Allow: null },
  },
  conflict: {
    status: 409,
    message: '%s',
    description: 'Conflict with the current state (changed concurrently, or registered to another account)',
  },
  last_owner: {
    status: 409,
    message: 'A project keeps at least one owner: %s',
    description: 'The project would be left without an owner',
  },
  account_owns_shared_projects: {
    status: 409,
    message:
      'The account is the last owner of %s, which other members share: make another member owner (POST /v1/projects/transfer) or remove them, then delete the account',
    description: 'The account is the last owner of a project other members share',
  },
  invitation_invalid: {
    status: 404,
    message: 'This invitation is unknown, expired, revoked or already used; ask for a new one',
    description: 'Unknown, expired, revoked or used invitation',
  },
  share_link_invalid: {
    status: 404,
    message: 'This share link is unknown or was revoked',
    description: 'Unknown or revoked share link, or its project deleted',
  },
  export_not_ready: {
    status: 409,
    message: '%s',
    description: 'The export has not succeeded (queued, running or failed)',
  },
  email_taken: {
    status: 409,
    message: 'An account with this email already exists',
    description: 'An account with this email already exists',
  },
  api_key_name_taken: {
    status: 409,
    message: 'An API key named %s already exists',
    description: 'The account has a live API key of that name',
  },
  body_too_large: { status: 413, message: 'Request body exceeds %s bytes', description: 'Body over its size limit' },
  event_too_large: { status: 413, message: 'Event %s exceeds %s bytes', description: 'An event over 32 KiB' },
  unsupported_media_type: {
    status: 415,
    message: 'Unsupported content type %s; send %s',
    description: 'Unsupported content type (see the request body types)',
  },
  unsupported_encoding: { status: 415, message: '%s', description: 'Unsupported charset or content encoding' },
  validation_error: { status: 422, message: null, description: 'Validation error' },
  rate_limited: {
    status: 429,
    message: 'Too many requests',
    description: 'Too many requests; retry after the Retry-After seconds',
    headers: { 'Retry-After': null },
  },
  // Issue 42: exports write files the size of the data; an account's share of the disk is capped.
  export_quota: {
    status: 429,
    message: '%s',
    description: "Over the account's export caps (exports at once, or bytes held in unexpired files)",
    headers: { 'Retry-After': null },
  },
  // Issue 42, item 4: open GET /v1/live streams are capped per account and per gateway process.
  too_many_live_streams: {
    status: 429,
    message: 'Too many open live streams: %s',
    description: 'Too many open live streams for the account or on the server',
    headers: { 'Retry-After': null },
  },
  headers_too_large: {
    status: 431,
    message: 'Request line or headers exceed 16 KB',
    description: 'Request line or headers over 16 KB',
  },
  internal: { status: 500, message: 'Internal Server Error', description: 'Internal Server Error' },
  unavailable: {
    status: 503,
    message: '%s',
    description: 'Temporarily unavailable; retry after the Retry-After seconds',
    headers: { 'Retry-After': null },
  },
} as const satisfies Record<string, ErrorEntry>;

export type ErrorCatalogue = typeof ERROR_CATALOGUE;
export type ErrorCode = keyof ErrorCatalogue;
export const ERROR_CODES = Object.keys(ERROR_CATALOGUE) as ErrorCode[];

export function isErrorCode(code: unknown): code is ErrorCode {
  return typeof code === 'string' && Object.hasOwn(ERROR_CATALOGUE, code);
}

/**
 * The documented error responses of an operation that may answer `codes`: one per status, its
 * description the catalogue's descriptions of those codes joined with "; or ".
 */
export function describeFailures(codes: Iterable<ErrorCode>): Map<number, { description: string; codes: ErrorCode[] }> {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of new Set(codes)) {
    const { status } = ERROR_CATALOGUE[code];
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  const sorted = [...byStatus.entries()].sort(([a], [b]) => a - b);
  return new Map(
    sorted.map(([status, list]) => [
      status,
      { description: list.map((c) => ERROR_CATALOGUE[c].description).join('; or '), codes: list },
    ]),
  );
}
