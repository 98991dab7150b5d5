import cors from 'cors';
import type { RequestHandler } from 'express';

export const ALLOWED_METHODS = 'GET, POST, PUT, PATCH, DELETE, OPTIONS';
export const ALLOWED_HEADERS = 'Authorization, Content-Type, Accept';

/**
 * Spec (Endpoints, rules 5 and 6): every path answers OPTIONS with 200, an empty body and the
 * three Access-Control-Allow-* headers, and the 200 and 422 responses of the other operations
 * carry the same three. `cors` alone sets Methods/Headers only on preflights, so the first
 * middleware puts defaults on every response and `cors` then reflects what a preflight asked.
 */
export function corsMiddleware(): RequestHandler[] {
  const defaults: RequestHandler = (_req, res, next) => {
    res.setHeader('Access-Control-Allow-Methods', ALLOWED_METHODS);
    res.setHeader('Access-Control-Allow-Headers', ALLOWED_HEADERS);
    next();
  };
  const reflect = cors({
    // The tracker runs on customer sites: any origin may call; credentials are bearer tokens,
    // never cookies, so reflecting the origin grants nothing a token would not.
    origin: (origin, cb) => cb(null, origin ?? '*'),
    methods: ALLOWED_METHODS,
    exposedHeaders: ['WWW-Authenticate', 'Retry-After'],
    maxAge: 86400,
    optionsSuccessStatus: 200,
  });
  return [defaults, reflect];
}
