// Errors of the one catalogue (libs/schemas/src/api/error-catalogue.ts; CONVENTIONS.md): an
// HttpError is made from a catalogued code, which alone fixes its status and fixed headers, and
// one express handler (error-handler.ts) or the fast lane turns it into the documented body.
import { format } from 'node:util';
import { ERROR_CATALOGUE, isErrorCode, type ErrorCatalogue, type ErrorCode } from '@spoor/schemas';

export type { ErrorCode };

export interface ValidationDetail {
  loc: Array<string | number>;
  msg: string;
  type: string;
  input?: unknown;
}

type Detail = string | ValidationDetail[];

export class HttpError extends Error {
  readonly status: number;
  readonly headers: Record<string, string>;

  /**
   * Prefer `createError`, which fills the catalogue's message. `headers` are the values of the
   * headers the code names without a fixed value (Retry-After, Allow).
   */
  constructor(
    readonly code: ErrorCode,
    readonly detail: Detail,
    headers: Record<string, string> = {},
    options?: { cause?: unknown },
  ) {
    super(typeof detail === 'string' ? detail : `${code}: ${detail.length} validation error(s)`, options);
    if (!isErrorCode(code)) throw new TypeError(`HttpError: ${String(code)} is not in the error catalogue`);
    const entry: { status: number; headers?: Readonly<Record<string, string | null>> } = ERROR_CATALOGUE[code];
    this.name = 'HttpError';
    this.status = entry.status;
    const fixed = Object.fromEntries(
      Object.entries(entry.headers ?? {}).filter((e): e is [string, string] => e[1] !== null),
    );
    this.headers = { ...fixed, ...headers };
  }
}

/** The `%s` of a catalogue message, one argument each. */
type MessageArgs<M> = M extends `${string}%s${infer Rest}` ? [string | number, ...MessageArgs<Rest>] : [];
/** What `createError` takes after the code: the message's arguments, or a validation failure's items. */
export type ErrorArgs<C extends ErrorCode> = ErrorCatalogue[C]['message'] extends null
  ? [detail: ValidationDetail[]]
  : MessageArgs<ErrorCatalogue[C]['message']>;

/** fastify's `createError`, for a code of the catalogue: its message with `args` in its `%s`. */
export function createError<C extends ErrorCode>(code: C, ...args: ErrorArgs<C>): HttpError {
  const message: string | null = ERROR_CATALOGUE[code].message;
  if (message === null) return new HttpError(code, args[0] as ValidationDetail[]);
  return new HttpError(code, args.length ? format(message, ...args) : message);
}

/** Shorthands for the errors made in more than one place, or with headers to fill. */
export const errors = {
  malformedJson: (why: string) => createError('malformed_json', why),
  requestAborted: () => createError('request_aborted'),
  tooDeep: (limit: number) =>
    createError('validation_error', [
      { loc: ['body'], msg: `JSON nested deeper than ${limit} levels`, type: 'value_error' },
    ]),
  unauthorized: (detail = 'Not authenticated') => createError('unauthorized', detail),
  notFound: (what: string) => createError('not_found', what),
  methodNotAllowed: (allow: string[]) =>
    new HttpError('method_not_allowed', ERROR_CATALOGUE.method_not_allowed.message, { Allow: allow.join(', ') }),
  conflict: (detail: string) => createError('conflict', detail),
  bodyTooLarge: (limitBytes: number | string) => createError('body_too_large', limitBytes),
  unsupportedMediaType: (got: string | undefined, accepted = 'application/json') =>
    createError('unsupported_media_type', got ?? '(none)', accepted),
  validation: (detail: ValidationDetail[]) => createError('validation_error', detail),
  tooManyRequests: (retryAfterSeconds: number) =>
    new HttpError('rate_limited', ERROR_CATALOGUE.rate_limited.message, { 'Retry-After': String(retryAfterSeconds) }),
  unavailable: (detail: string, retryAfterSeconds = 1) =>
    new HttpError('unavailable', detail, { 'Retry-After': String(retryAfterSeconds) }),
  internal: () => createError('internal'),
};
