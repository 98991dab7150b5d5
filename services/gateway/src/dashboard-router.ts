import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, extname, join } from 'node:path';
import { Router, type Request, type RequestHandler } from 'express';
import type { Logger } from '@spoor/log';
import { VERSIONED_CACHE } from './logger-script-router.js';

/** index.html names the hashed assets of one build, so it must be asked for again every time. */
export const DASHBOARD_HTML_CACHE = 'no-cache';

/**
 * Paths the dashboard never answers: the API, the documents, probes and the logger. The
 * history-API fallback below would otherwise answer a browser's GET of them with the app.
 */
const RESERVED = /^\/(v1(\/|$)|openapi\.json|\.well-known\/|healthz|metrics|logger[./]|assets\/)/;

const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.woff2': 'font/woff2',
  '.map': 'application/json; charset=utf-8',
};

interface StaticFile { body: Buffer; type: string; etag: string }

function load(path: string, type: string): StaticFile {
  const body = readFileSync(path);
  return { body, type, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 16)}"` };
}

function send(file: StaticFile, cacheControl: string): RequestHandler {
  return (req, res) => {
    res.set({ 'Content-Type': file.type, 'Cache-Control': cacheControl, ETag: file.etag, 'X-Content-Type-Options': 'nosniff' });
    if (req.headers['if-none-match'] === file.etag) return void res.status(304).end();
    res.send(file.body);
  };
}

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
  let index: StaticFile;
  try {
    index = load(join(dist, 'index.html'), 'text/html; charset=utf-8');
  } catch (err) {
    logger.warn('the dashboard is not built (npm run build); / answers 404', { err });
    return router;
  }
  const assets = new Map<string, StaticFile>();
  for (const name of readdirSync(join(dist, 'assets'))) assets.set(name, load(join(dist, 'assets', name), TYPES[extname(name)] ?? 'application/octet-stream'));
  router.get('/assets/:name', (req, res, next) => {
    const file = assets.get(String(req.params.name));
    if (!file) return next();
    send(file, VERSIONED_CACHE)(req, res, next);
  });
  const html = send(index, DASHBOARD_HTML_CACHE);
  router.use((req, res, next) => (wantsApp(req) ? html(req, res, next) : next()));
  return router;
}
