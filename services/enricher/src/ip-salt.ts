import { randomBytes } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { Config } from '@spoor/config';

/**
 * The salt for SPOOR_IP_MODE=hash: SPOOR_IP_SALT when given (every enricher of a split
 * deployment must share it), else one generated once and kept under the data directory.
 */
export async function ipSalt(config: Config): Promise<string> {
  if (config.ipSalt) return config.ipSalt;
  const file = join(resolve(config.dataDir), 'ip-salt');
  try {
    return (await readFile(file, 'utf8')).trim();
  } catch {
    const salt = randomBytes(32).toString('hex');
    await mkdir(resolve(config.dataDir), { recursive: true });
    await writeFile(file, salt, { mode: 0o600, flag: 'wx' }).catch(() => undefined);
    return (await readFile(file, 'utf8')).trim();
  }
}
