import { chmod, lstat, mkdir, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from '@spoor/service-log';

/**
 * The embedded data directory holds the ES256 signing key and scrypt password hashes (in
 * spoor.duckdb and its WAL) and every event (the bus log): readable by its owner only (issue 13).
 * Folders 0700, files 0600. New files get these modes from the process umask (`main` sets 0077)
 * and from explicit modes where Spoor creates them itself; this pass fixes what an older version,
 * another tool or a restored backup left looser, on every start.
 */
export async function secureDataDir(dir: string, logger: Logger): Promise<number> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  let fixed = 0;
  const visit = async (path: string): Promise<void> => {
    const info = await lstat(path);
    if (info.isSymbolicLink()) return; // never follow links out of the data directory
    const wanted = info.isDirectory() ? 0o700 : 0o600;
    if ((info.mode & 0o777 & ~wanted) !== 0) {
      await chmod(path, wanted);
      fixed++;
    }
    if (info.isDirectory()) for (const name of await readdir(path)) await visit(join(path, name));
  };
  await visit(dir);
  if (fixed > 0) logger.warn('data directory permissions tightened', { dir, fixed });
  return fixed;
}
