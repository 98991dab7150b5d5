import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { Router, type RequestHandler } from 'express';
import type { Logger } from '@spoor/log';

/** /logger.js may be a week old in a cache (revalidated by ETag); a hashed path never changes, so it is cached for a year. */
export const LOGGER_CACHE = 'public, max-age=604800, stale-while-revalidate=86400';
export const VERSIONED_CACHE = 'public, max-age=31536000, immutable';

function serve(code: Buffer, etag: string, cacheControl: string): RequestHandler {
  return (req, res) => {
    res.set({ 'Content-Type': 'text/javascript; charset=utf-8', 'Cache-Control': cacheControl, ETag: etag, 'Cross-Origin-Resource-Policy': 'cross-origin' });
    if (req.headers['if-none-match'] === etag) return void res.status(304).end();
    res.send(code);
  };
}

/**
 * The browser logger (libs/logger, built by scripts/build-logger.mjs): `/logger.js` for the
 * <script> tag, `/logger.mjs` for `import`, and `/logger/<hash>.js` / `.mjs`, the same bytes under
 * a name that changes with them. Read once at start-up.
 */
export function loggerScriptRouter(logger: Logger): Router {
  const router = Router();
  const dist = join(dirname(createRequire(import.meta.url).resolve('@spoor/logger/package.json')), 'dist');
  for (const [file, ext] of [['spoor.iife.js', 'js'], ['spoor.mjs', 'mjs']] as const) {
    let code: Buffer;
    try {
      code = readFileSync(join(dist, file));
    } catch (err) {
      logger.warn('the browser logger is not built (npm run build); /logger.js answers 404', { file, err });
      continue;
    }
    const hash = createHash('sha256').update(code).digest('base64url').slice(0, 16);
    router.get(`/logger.${ext}`, serve(code, `"${hash}"`, LOGGER_CACHE));
    router.get(`/logger/${hash}.${ext}`, serve(code, `"${hash}"`, VERSIONED_CACHE));
  }
  return router;
}
