import { rmSync } from 'node:fs';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// Names carry the owner's pid (spoor-<prefix>-p<pid>-XXXXXX) so that dirs left by a process
// that was SIGKILLed (no hook ran) can be recognised and swept by the next run.
const OWNED_NAME = /^spoor-[A-Za-z0-9_-]+-p(\d+)-[A-Za-z0-9]{6}$/;

const dirs = new Set<string>();
let firstUse: Promise<void> | undefined;

function processIsAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

async function sweepOrphans(): Promise<void> {
  const names = await readdir(tmpdir()).catch(() => [] as string[]);
  await Promise.all(
    names.map(async (name) => {
      const owner = OWNED_NAME.exec(name)?.[1];
      if (owner !== undefined && Number(owner) !== process.pid && !processIsAlive(Number(owner))) {
        await rm(join(tmpdir(), name), { recursive: true, force: true }).catch(() => undefined);
      }
    }),
  );
}

function onFirstUse(): Promise<void> {
  process.on('exit', () => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });
  return sweepOrphans();
}

/**
 * A fresh directory under the OS temp dir, removed by stopAllEngines (or, failing that,
 * when the process exits). Engines keep their data and logs in one of these too.
 */
export async function makeTempDir(prefix: string): Promise<string> {
  firstUse ??= onFirstUse();
  await firstUse;
  const safePrefix = prefix.replace(/[^A-Za-z0-9_-]+/g, '-').slice(0, 40) || 'tmp';
  const dir = await mkdtemp(join(tmpdir(), `spoor-${safePrefix}-p${process.pid}-`));
  dirs.add(dir);
  return dir;
}

export async function removeTempDirs(): Promise<void> {
  const all = [...dirs];
  dirs.clear();
  await Promise.all(all.map((dir) => rm(dir, { recursive: true, force: true, maxRetries: 3 })));
}
