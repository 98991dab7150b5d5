// One error catalogue (CONVENTIONS.md): every error the API answers has a stable code and
// status here, and one express handler (error-handler.ts) turns it into the documented body.

export interface ValidationDetail {
  loc: Array<string | number>;
  msg: string;
  type: string;
  input?: unknown;
}

export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    readonly detail: string | ValidationDetail[],
    readonly headers: Record<string, string> = {},
  ) {
    super(typeof detail === 'string' ? detail : `${code}: ${detail.length} validation error(s)`);
    this.name = 'HttpError';
  }
}

export const errors = {
  malformedJson: (why: string) => new HttpError(400, 'malformed_json', `Malformed JSON: ${why}`),
  badRequest: (detail: string) => new HttpError(400, 'bad_request', detail),
  requestAborted: () => new HttpError(400, 'request_aborted', 'Request aborted'),
  tooDeep: (limit: number) =>
    new HttpError(422, 'validation_error', [{ loc: ['body'], msg: `JSON nested deeper than ${limit} levels`, type: 'value_error' }]),
  unauthorized: (detail = 'Not authenticated') =>
    new HttpError(401, 'unauthorized', detail, { 'WWW-Authenticate': 'Bearer' }),
  forbidden: (detail: string) => new HttpError(403, 'forbidden', detail),
  originMismatch: (origin: string) =>
    new HttpError(403, 'origin_mismatch', `Origin ${origin} does not match the project's origin`),
  notFound: (what = 'Not Found') => new HttpError(404, 'not_found', what),
  methodNotAllowed: (allow: string[]) => new HttpError(405, 'method_not_allowed', 'Method Not Allowed', { Allow: allow.join(', ') }),
  conflict: (detail: string) => new HttpError(409, 'conflict', detail),
  payloadTooLarge: (detail: string) => new HttpError(413, 'payload_too_large', detail),
  unsupportedMediaType: (got: string | undefined, accepted = 'application/json') =>
    new HttpError(415, 'unsupported_media_type', `Unsupported content type ${got ?? '(none)'}; send ${accepted}`),
  validation: (detail: ValidationDetail[]) => new HttpError(422, 'validation_error', detail),
  tooManyRequests: (retryAfterSeconds: number) =>
    new HttpError(429, 'rate_limited', 'Too many requests', { 'Retry-After': String(retryAfterSeconds) }),
  unavailable: (detail: string, retryAfterSeconds = 1) =>
    new HttpError(503, 'unavailable', detail, { 'Retry-After': String(retryAfterSeconds) }),
  internal: () => new HttpError(500, 'internal', 'Internal Server Error'),
};
