import { randomBytes } from 'node:crypto';
import { link, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';

/**
 * The salt for SPOOR_IP_MODE=hash: SPOOR_IP_SALT when given (every enricher of a split
 * deployment must share it), else one generated once and kept under the data directory. Here,
 * not in the enricher, because the worker needs the same salt to find an IP it is asked to
 * erase (POST /v1/erasures) in the form it was stored.
 */
export async function ipSalt(config: { ipSalt: string | null; dataDir: string }): Promise<string> {
  if (config.ipSalt) return config.ipSalt;
  const file = join(resolve(config.dataDir), 'ip-salt');
  try {
    return (await readFile(file, 'utf8')).trim();
  } catch {
    // Written whole under a temporary name, then linked into place: link() fails if another
    // process won the race, and nobody ever reads a half-written salt.
    await mkdir(resolve(config.dataDir), { recursive: true });
    const tmp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}`;
    await writeFile(tmp, randomBytes(32).toString('hex'), { mode: 0o600 });
    await link(tmp, file).catch(() => undefined);
    await rm(tmp, { force: true });
    return (await readFile(file, 'utf8')).trim();
  }
}
