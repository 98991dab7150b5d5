import { existsSync } from 'node:fs';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { StartedEngine } from '../started-engine.js';
import { makeTempDir } from '../temp-dir-registry.js';
import { withCacheLock } from './cache-lock.js';
import { ManagedProcess } from './managed-process.js';
import { runToCompletion } from './one-shot-command.js';
import { pollUntil } from './readiness-poller.js';
import { restartable, type RestartableEngine } from './restartable-engine.js';
import { cachePath, deployLocalPath } from './repo-paths.js';

const SETUP_TIMEOUT_MS = 15 * 60_000;
const REQUIREMENTS = deployLocalPath('chdb', 'requirements.txt');

/**
 * .cache/chdb-venv with the pinned chdb wheels. The requirements file is copied into the
 * venv once pip succeeds; a venv without that copy (interrupted) or with an older one is
 * rebuilt from scratch.
 */
export async function ensureChdbVenv(): Promise<string> {
  const venv = cachePath('chdb-venv');
  const python = join(venv, 'bin', 'python');
  const marker = join(venv, '.spoor-requirements.txt');
  const wanted = await readFile(REQUIREMENTS, 'utf8');
  const isReady = async (): Promise<boolean> =>
    existsSync(python) && (await readFile(marker, 'utf8').catch(() => '')) === wanted;
  if (await isReady()) return python;
  return withCacheLock(`${venv}.lock`, SETUP_TIMEOUT_MS, async () => {
    if (await isReady()) return python;
    process.stderr.write(`testkit: installing chDB into ${venv} with pip (once)\n`);
    const logFile = cachePath('chdb-venv-setup.log');
    await rm(venv, { recursive: true, force: true });
    await rm(logFile, { force: true });
    // Debian splits ensurepip out of python3: a failure here means "apt-get install python3-venv".
    await runToCompletion({
      label: 'python3 -m venv',
      command: 'python3',
      args: ['-m', 'venv', venv],
      logFile,
      timeoutMs: 120_000,
    });
    await runToCompletion({
      label: 'pip install chdb',
      command: python,
      args: ['-m', 'pip', 'install', '--disable-pip-version-check', '--no-input', '-q', '-r', REQUIREMENTS],
      logFile,
      timeoutMs: SETUP_TIMEOUT_MS,
    });
    await writeFile(marker, wanted);
    return python;
  });
}

async function pingAnswers(url: string): Promise<boolean> {
  const response = await fetch(`${url}/ping`, { signal: AbortSignal.timeout(2_000) });
  return response.ok && (await response.text()) === 'Ok.\n';
}

/**
 * ClickHouse's HTTP interface served by chDB (deploy/local/chdb/chdb_http_server.py), with
 * its data in a fresh temp dir. The server binds port 0 and writes the port it got to a
 * file, so there is no window for another process to take it.
 */
export async function startLocalClickHouse(): Promise<StartedEngine> {
  const { url, server } = await launchChdb(await makeTempDir('chdb'), 0);
  return { url, stop: () => server.stop() };
}

/**
 * The same server as one a fault test may halt and restart (issue 16): a restart binds the port
 * the first start got (the server sets SO_REUSEADDR) and reopens the same data dir.
 */
export async function startRestartableClickHouse(): Promise<RestartableEngine> {
  const dir = await makeTempDir('chdb');
  const first = await launchChdb(dir, 0);
  let initial: ManagedProcess | null = first.server;
  const port = Number(new URL(first.url).port);
  return restartable(first.url, async () => {
    const ready = initial;
    initial = null;
    return ready ?? (await launchChdb(dir, port)).server;
  });
}

async function launchChdb(dir: string, wantedPort: number): Promise<{ url: string; server: ManagedProcess }> {
  const python = await ensureChdbVenv();
  const portFile = join(dir, 'port');
  await rm(portFile, { force: true });
  const server = ManagedProcess.start({
    name: 'chdb',
    command: python,
    args: [
      '-u',
      deployLocalPath('chdb', 'chdb_http_server.py'),
      '--data-dir',
      join(dir, 'data'),
      '--host',
      '127.0.0.1',
      '--port',
      String(wantedPort),
      '--port-file',
      portFile,
    ],
    logFile: join(dir, 'chdb.log'),
    // UTC like the clickhouse-server image; no .pyc files written into the repo.
    env: { ...process.env, TZ: 'UTC', PYTHONDONTWRITEBYTECODE: '1' },
    // The server also stops when this pipe closes, i.e. when this process dies.
    stdin: 'pipe',
    stopGraceMs: 10_000,
  });
  let url = '';
  try {
    await pollUntil(
      'chdb http server',
      async () => {
        if (url === '') {
          const port = Number.parseInt(await readFile(portFile, 'utf8'), 10);
          if (!Number.isInteger(port)) return false;
          url = `http://127.0.0.1:${port}`;
        }
        return pingAnswers(url);
      },
      { timeoutMs: 60_000, intervalMs: 100, abortReason: () => server.exitReason() },
    );
  } catch (error) {
    const failure = await server.failure((error as Error).message);
    await server.stop();
    throw failure;
  }
  return { url, server };
}
