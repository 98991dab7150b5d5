import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

let cachedRoot: string | undefined;

/**
 * The repository root, found by walking up from this module to the folder holding
 * `deploy/local` (the runners' static files). Works from `src/` under ts-node as well as
 * from `dist/src/` after a build, and does not depend on the caller's working directory.
 */
export function repoRoot(): string {
  if (cachedRoot !== undefined) return cachedRoot;
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'deploy', 'local'))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error('cannot find the repository root (no deploy/local above the testkit)');
    dir = parent;
  }
  cachedRoot = dir;
  return dir;
}

/** A path under `deploy/local`, where the runners' static files live. */
export function deployLocalPath(...parts: string[]): string {
  return join(repoRoot(), 'deploy', 'local', ...parts);
}

/**
 * A path in the download cache: `.cache/` at the repo root (git-ignored), or
 * SPOOR_CACHE_DIR so several clones (CI runs a fresh one each time) can share one.
 */
export function cachePath(...parts: string[]): string {
  const base = process.env['SPOOR_CACHE_DIR'] ?? join(repoRoot(), '.cache');
  return join(base, ...parts);
}
