import { existsSync } from 'node:fs';
import { connect } from 'node:net';
import { delimiter, join } from 'node:path';
import { connect as tlsConnect } from 'node:tls';
import type { StartedEngine } from '../started-engine.js';
import { makeTempDir } from '../temp-dir-registry.js';
import { ManagedProcess } from './managed-process.js';
import { freePort } from './port-allocator.js';
import { pollUntil } from './readiness-poller.js';
import { restartable, type RestartableEngine } from './restartable-engine.js';
import type { TestPki } from './test-pki.js';

function findRedisServer(): string {
  // /usr/sbin and /usr/bin are searched even when PATH is minimal (CI, sudo).
  const dirs = [...(process.env.PATH ?? '').split(delimiter), '/usr/bin', '/usr/sbin', '/usr/local/bin'];
  for (const dir of dirs) {
    if (dir !== '' && existsSync(join(dir, 'redis-server'))) return join(dir, 'redis-server');
  }
  throw new Error('redis-server not found on PATH (Debian: apt-get install redis-server)');
}

/** Sends PING in the inline protocol and waits for +PONG, with no client library. */
export function redisPongs(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    let reply = '';
    const finish = (ok: boolean): void => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(1_000, () => finish(false));
    socket.once('error', () => finish(false));
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.on('data', (chunk) => {
      reply += chunk.toString('utf8');
      if (reply.includes('\r\n')) finish(reply.startsWith('+PONG'));
    });
  });
}

/** Debian's redis-server on a free loopback port: no RDB snapshots, no AOF, data in a temp dir. */
/** A throwaway server: loopback only, nothing kept on disk but in `dir`, logs to stdout. */
const ephemeral = (dir: string) => [
  '--bind',
  '127.0.0.1',
  '--save',
  '',
  '--appendonly',
  'no',
  '--dir',
  dir,
  '--daemonize',
  'no',
  '--logfile',
  '',
];

export async function startLocalRedis(): Promise<StartedEngine> {
  const { url, launch } = await prepareLocalRedis();
  const server = await launch();
  return { url, stop: () => server.stop() };
}

/**
 * The same server as one a fault test may halt and restart on its port (issue 16). Without
 * persistence it comes back empty, which is the point: Redis holds only what can be rebuilt.
 */
export async function startRestartableRedis(): Promise<RestartableEngine> {
  const { url, launch } = await prepareLocalRedis();
  return restartable(url, launch);
}

async function prepareLocalRedis(): Promise<{ url: string; launch: () => Promise<ManagedProcess> }> {
  const binary = findRedisServer();
  const dir = await makeTempDir('redis');
  const port = await freePort();
  const launch = async (): Promise<ManagedProcess> => {
    const server = ManagedProcess.start({
      name: 'redis',
      command: binary,
      args: ['--port', String(port), ...ephemeral(dir)],
      logFile: join(dir, 'redis.log'),
      stopGraceMs: 5_000,
    });
    try {
      await pollUntil(`redis on port ${port}`, () => redisPongs(port), {
        timeoutMs: 20_000,
        intervalMs: 50,
        abortReason: () => server.exitReason(),
      });
    } catch (error) {
      const failure = await server.failure((error as Error).message);
      await server.stop();
      throw failure;
    }
    return server;
  };
  return { url: `redis://127.0.0.1:${port}`, launch };
}

/** Sends PING over TLS and waits for +PONG. */
function redisPongsOverTls(port: number, ca: string): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = tlsConnect({ host: '127.0.0.1', port, ca });
    let reply = '';
    const finish = (ok: boolean): void => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(1_000, () => finish(false));
    socket.once('error', () => finish(false));
    socket.once('secureConnect', () => socket.write('PING\r\n'));
    socket.on('data', (chunk) => {
      reply += chunk.toString('utf8');
      if (reply.includes('\r\n')) finish(reply.startsWith('+PONG'));
    });
  });
}

/**
 * redis-server with TLS only (issue 46): `--port 0 --tls-port`, the server certificate of `pki`,
 * client certificates checked when given (`--tls-auth-clients optional`). The URL is rediss://.
 */
export async function startTlsRedis(pki: TestPki): Promise<StartedEngine> {
  const binary = findRedisServer();
  const dir = await makeTempDir('redis-tls');
  const port = await freePort();
  const server = ManagedProcess.start({
    name: 'redis-tls',
    command: binary,
    args: [
      '--port',
      '0',
      '--tls-port',
      String(port),
      '--tls-cert-file',
      pki.server.certFile,
      '--tls-key-file',
      pki.server.keyFile,
      '--tls-ca-cert-file',
      pki.caFile,
      '--tls-auth-clients',
      'optional',
      ...ephemeral(dir),
    ],
    logFile: join(dir, 'redis.log'),
    stopGraceMs: 5_000,
  });
  try {
    await pollUntil(`redis over TLS on port ${port}`, () => redisPongsOverTls(port, pki.ca), {
      timeoutMs: 20_000,
      intervalMs: 50,
      abortReason: () => server.exitReason(),
    });
  } catch (error) {
    const failure = await server.failure((error as Error).message);
    await server.stop();
    throw failure;
  }
  return { url: `rediss://127.0.0.1:${port}`, stop: () => server.stop() };
}
