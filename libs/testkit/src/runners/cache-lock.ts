import { mkdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

const OWNER_FILE = 'owner';
// A lock directory whose owner file never appeared is taken as abandoned after this long.
const ORPHAN_AFTER_MS = 60_000;

function processIsAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

async function holderIsGone(lockDir: string): Promise<boolean> {
  const owner = await readFile(join(lockDir, OWNER_FILE), 'utf8').catch(() => null);
  if (owner === null) {
    const info = await stat(lockDir).catch(() => null);
    return info === null || Date.now() - info.mtimeMs > ORPHAN_AFTER_MS;
  }
  const pid = Number.parseInt(owner, 10);
  return !Number.isInteger(pid) || !processIsAlive(pid);
}

/**
 * Runs `work` while holding a cross-process lock, so two test processes (or a test run and
 * `engines.mjs up`) never fill the same cache directory at once. mkdir is atomic on every
 * local file system; a lock left by a dead process (its pid is recorded) is taken over.
 */
export async function withCacheLock<T>(lockDir: string, timeoutMs: number, work: () => Promise<T>): Promise<T> {
  await mkdir(dirname(lockDir), { recursive: true });
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      await mkdir(lockDir);
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    if (await holderIsGone(lockDir)) {
      await rm(lockDir, { recursive: true, force: true });
      continue;
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for the cache lock ${lockDir}`);
    await sleep(500);
  }
  try {
    await writeFile(join(lockDir, OWNER_FILE), `${process.pid}\n`);
    return await work();
  } finally {
    await rm(lockDir, { recursive: true, force: true });
  }
}
