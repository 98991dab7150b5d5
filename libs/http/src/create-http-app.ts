import express, { type Express } from 'express';
import type { Logger } from '@spoor/service-log';
import { corsMiddleware } from './cors-middleware.js';
import { errorHandler, notFoundHandler } from './error-handler.js';
import { methodNotAllowedHandler } from './method-not-allowed.js';

export interface HttpAppOptions {
  logger: Logger;
  trustProxy: boolean | number | string[];
  /** Adds the routers of the services that run in this process. */
  mount: (app: Express) => void;
}

/**
 * The one express app factory: CORS on every response, OPTIONS 200 on every path, trailing
 * slash optional (express' non-strict routing), the error catalogue's bodies, 405 with Allow for
 * a method a path does not have, JSON 404s.
 * It does not listen, so tests can start it on port 0.
 */
export function createHttpApp(opts: HttpAppOptions): Express {
  const app = express();
  app.disable('x-powered-by');
  // Whatever reaches express' own last-resort handler answers without a stack trace.
  app.set('env', 'production');
  // No ETag: API answers are not revalidated by clients, and hashing every body cost ~1 % of
  // ingest's CPU in a profile.
  app.set('etag', false);
  app.set('trust proxy', opts.trustProxy);
  app.set('strict routing', false);
  app.set('case sensitive routing', true);
  app.use(corsMiddleware());
  opts.mount(app);
  app.use(methodNotAllowedHandler);
  app.use(notFoundHandler);
  app.use(errorHandler(opts.logger));
  return app;
}
