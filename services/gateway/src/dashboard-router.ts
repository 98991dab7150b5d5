import { readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { Router, type Request } from 'express';
import type { Logger } from '@spoor/service-log';
import { IMMUTABLE_CACHE, readBuilt, serveBuilt, type BuiltFile } from './built-file.js';

/** index.html names the hashed assets of one build, so it must be asked for again every time. */
const HTML_CACHE = 'no-cache';

/**
 * The dashboard's pages (issue 13): scripts only from Spoor's own origin (Vite's build has no
 * inline script), no framing, no referrer. Styles allow inline `style` attributes because the
 * charts and the DOM builder set element styles; no script can be injected through them.
 */
export const DASHBOARD_SECURITY_HEADERS: Record<string, string> = {
  'Content-Security-Policy': [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    "connect-src 'self'",
    "font-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; '),
  'Referrer-Policy': 'no-referrer',
  'X-Frame-Options': 'DENY',
};

/**
 * Paths the dashboard never answers: the API, the documents, probes and the logger. The
 * history-API fallback below would otherwise answer a browser's GET of them with the app.
 */
const RESERVED = /^\/(v1(\/|$)|openapi\.json|\.well-known\/|healthz|metrics|logger[./]|assets\/)/;

/** A navigation by a browser: a GET (or HEAD) that takes HTML, to a path that is not reserved. */
function wantsApp(req: Request): boolean {
  if (req.method !== 'GET' && req.method !== 'HEAD') return false;
  if (RESERVED.test(req.path)) return false;
  return req.path === '/' || (req.headers.accept ?? '').includes('text/html');
}

/**
 * The dashboard (apps/dashboard, built by scripts/build-dashboard.mjs with Vite), read once at
 * start-up: `index.html` for `/` and every client-side route, the hashed files under `/assets/`
 * cached for a year (their names change with their bytes).
 */
export function dashboardRouter(logger: Logger): Router {
  const router = Router();
  const dist = join(dirname(createRequire(import.meta.url).resolve('@spoor/dashboard/package.json')), 'dist');
  let index: BuiltFile;
  try {
    index = readBuilt(join(dist, 'index.html'));
  } catch (err) {
    logger.warn('the dashboard is not built (npm run build); / answers 404', { err });
    return router;
  }
  // One handler per asset, made now: a request only looks its name up.
  const assets = new Map(
    readdirSync(join(dist, 'assets')).map((name) => [
      name,
      serveBuilt(readBuilt(join(dist, 'assets', name)), IMMUTABLE_CACHE),
    ]),
  );
  router.get('/assets/:name', (req, res, next) => {
    res.set('Referrer-Policy', 'no-referrer');
    (assets.get(String(req.params.name)) ?? ((_q, _s, n) => n()))(req, res, next);
  });
  const html = serveBuilt(index, HTML_CACHE);
  router.use((req, res, next) => {
    if (!wantsApp(req)) return next();
    res.set(DASHBOARD_SECURITY_HEADERS);
    html(req, res, next);
  });
  return router;
}
