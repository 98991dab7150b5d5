import type { ErrorRequestHandler, RequestHandler } from 'express';
import type { Logger } from '@spoor/log';
import { HttpError, errors } from './http-errors.js';

interface BodyParserError extends Error {
  type?: string;
  status?: number;
  limit?: number;
}

/** Maps body-parser's errors onto our catalogue. */
function fromBodyParser(err: BodyParserError): HttpError | null {
  switch (err.type) {
    case 'entity.too.large':
      return errors.payloadTooLarge(`Request body exceeds ${err.limit ?? 'the'} bytes`);
    case 'entity.parse.failed':
      return errors.malformedJson(err.message);
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return new HttpError(415, 'unsupported_media_type', err.message);
    case 'request.aborted':
      return new HttpError(400, 'request_aborted', 'Request aborted');
    default:
      return null;
  }
}

export const notFoundHandler: RequestHandler = (_req, _res, next) => next(errors.notFound());

export function errorHandler(logger: Logger): ErrorRequestHandler {
  return (err: unknown, req, res, _next) => {
    const known = err instanceof HttpError ? err : fromBodyParser(err as BodyParserError);
    const httpError = known ?? errors.internal();
    if (!known) logger.error('unhandled error', { err, method: req.method, path: req.path });
    if (res.headersSent) return;
    res.status(httpError.status).set(httpError.headers).json({ detail: httpError.detail });
  };
}
