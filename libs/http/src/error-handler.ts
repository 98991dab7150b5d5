import type { ErrorRequestHandler, RequestHandler, Response } from 'express';
import type { Logger } from '@spoor/service-log';
import { HttpError, createError, errors } from './http-errors.js';
import { INTERNAL_BODY, stringifyOrFallback } from './safe-json.js';

interface FrameworkError extends Error {
  type?: string;
  status?: number;
  limit?: number;
}

/** Maps body-parser's and the router's own errors onto our catalogue. */
function fromFramework(err: FrameworkError): HttpError | null {
  switch (err.type) {
    case 'entity.too.large':
      return errors.bodyTooLarge(err.limit ?? 'the');
    case 'entity.parse.failed':
      return errors.malformedJson(err.message);
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return createError('unsupported_encoding', err.message);
    case 'request.aborted':
      return errors.requestAborted();
  }
  // The router fails to decode a path parameter such as `%ZZ` with a URIError marked 400.
  if (err instanceof URIError) return createError('malformed_path');
  return null;
}

export const notFoundHandler: RequestHandler = (_req, _res, next) => next(createError('route_not_found'));

/**
 * Writes an error in the documented body. It never throws: whatever it is handed, the answer is
 * JSON without internals, and express' default handler (an HTML page with a stack trace outside
 * production) is never reached.
 */
export function sendError(res: Response, httpError: HttpError): void {
  if (res.headersSent) return;
  const { body, ok } = stringifyOrFallback({ detail: httpError.detail });
  const status = ok ? httpError.status : 500;
  res
    .status(status)
    .set(ok ? httpError.headers : {})
    .type('application/json; charset=utf-8')
    .send(body);
}

export function errorHandler(logger: Logger): ErrorRequestHandler {
  return (err: unknown, req, res, _next) => {
    try {
      const known = err instanceof HttpError ? err : err instanceof Error ? fromFramework(err) : null;
      if (!known) logger.error('unhandled error', { err, method: req.method, path: req.path });
      sendError(res, known ?? errors.internal());
    } catch (failure) {
      logger.error('error handler failed', { err: failure });
      if (!res.headersSent) res.status(500).type('application/json; charset=utf-8').send(INTERNAL_BODY);
    }
  };
}
