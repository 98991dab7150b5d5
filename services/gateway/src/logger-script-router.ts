import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { Router } from 'express';
import type { Logger } from '@spoor/service-log';
import { IMMUTABLE_CACHE, readBuilt, serveBuilt, type BuiltFile } from './built-file.js';

/** /logger.js may be a week old in a cache (revalidated by ETag); the hashed name never changes. */
const LOGGER_CACHE = 'public, max-age=604800, stale-while-revalidate=86400';

/**
 * The browser logger (libs/logger, built by scripts/build-logger.mjs): `/logger.js` for the
 * <script> tag, `/logger.mjs` for `import`, and `/logger/<hash>.js` / `.mjs`, the same bytes under
 * a name that changes with them. Read once at start-up.
 */
export function loggerScriptRouter(logger: Logger): Router {
  const router = Router();
  const dist = join(dirname(createRequire(import.meta.url).resolve('@spoor/logger/package.json')), 'dist');
  for (const [file, ext] of [
    ['spoor.iife.js', 'js'],
    ['spoor.mjs', 'mjs'],
  ] as const) {
    let built: BuiltFile;
    try {
      built = readBuilt(join(dist, file));
    } catch (err) {
      logger.warn('the browser logger is not built (npm run build); /logger.js answers 404', { file, err });
      continue;
    }
    router.get(`/logger.${ext}`, serveBuilt(built, LOGGER_CACHE));
    router.get(`/logger/${built.hash}.${ext}`, serveBuilt(built, IMMUTABLE_CACHE));
  }
  return router;
}
