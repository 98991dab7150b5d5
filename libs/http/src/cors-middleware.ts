import cors from 'cors';
import type { RequestHandler } from 'express';

export const ALLOWED_METHODS = 'GET, POST, PUT, PATCH, DELETE, OPTIONS';
export const ALLOWED_HEADERS = 'Authorization, Content-Type, Accept';
/** What `cors` writes for the `exposedHeaders` below: the names joined with a bare comma. */
const EXPOSED_HEADERS = 'WWW-Authenticate,Retry-After';

/** `cors`'s options: preflights, and the reference its test holds the direct path to. */
export const CORS_OPTIONS: cors.CorsOptions = {
  // The tracker runs on customer sites: any origin may call; credentials are bearer tokens,
  // never cookies, so reflecting the origin grants nothing a token would not.
  origin: (origin, cb) => cb(null, origin ?? '*'),
  methods: ALLOWED_METHODS,
  exposedHeaders: EXPOSED_HEADERS.split(','),
  maxAge: 86400,
  optionsSuccessStatus: 200,
};

/**
 * Spec (Endpoints, rules 5 and 6): every path answers OPTIONS with 200, an empty body and the
 * three Access-Control-Allow-* headers, and the 200 and 422 responses of the other operations
 * carry the same three. `cors` alone sets Methods/Headers only on preflights, so defaults go on
 * every response and `cors` then reflects what a preflight asked.
 *
 * Every other request gets what `cors` would write for it, set here directly: the library
 * copies its options and walks three callbacks per request, 3–4 % of ingest's request path and
 * a tenth of a small read's work on the HTTP thread (issues 14 and 15). A test holds the two to
 * the same headers for every kind of Origin. A response that already varies goes to `cors`,
 * whose `vary` merges the lists.
 */
export function corsMiddleware(): RequestHandler[] {
  const library = cors(CORS_OPTIONS);
  const handler: RequestHandler = (req, res, next) => {
    if (req.method === 'OPTIONS' || res.hasHeader('Vary')) {
      res.setHeader('Access-Control-Allow-Methods', ALLOWED_METHODS);
      res.setHeader('Access-Control-Allow-Headers', ALLOWED_HEADERS);
      return library(req, res, next);
    }
    for (const [name, value] of Object.entries(corsHeaders(req.headers.origin))) res.setHeader(name, value);
    next();
  };
  return [handler];
}

/**
 * What corsMiddleware sets on a response that does not vary yet, other than a preflight, as names
 * and values (the test holds them to what `cors` writes): corsMiddleware sets them with
 * `setHeader`; FastLane.addStream hands them to `writeHead`, after which node keeps no header map
 * with the response, whose answers stay open.
 */
export function corsHeaders(origin: string | undefined): Record<string, string> {
  const headers: Record<string, string> = {
    'Access-Control-Allow-Methods': ALLOWED_METHODS,
    'Access-Control-Allow-Headers': ALLOWED_HEADERS,
  };
  // `cors` takes an empty Origin for "no origin allowed" and adds nothing.
  if (origin === '') return headers;
  if (origin === undefined || origin === '*') {
    headers['Access-Control-Allow-Origin'] = '*';
  } else {
    headers['Access-Control-Allow-Origin'] = origin;
    headers['Vary'] = 'Origin';
  }
  headers['Access-Control-Expose-Headers'] = EXPOSED_HEADERS;
  return headers;
}
