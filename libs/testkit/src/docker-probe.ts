import { existsSync } from 'node:fs';
import { request, type RequestOptions } from 'node:http';

const DEFAULT_SOCKET = '/var/run/docker.sock';
let answer: Promise<boolean> | undefined;

function pings(target: RequestOptions): Promise<boolean> {
  return new Promise((resolve) => {
    const req = request({ ...target, path: '/_ping', method: 'GET', timeout: 1_500 }, (res) => {
      res.resume();
      resolve(res.statusCode === 200);
    });
    req.once('timeout', () => req.destroy());
    req.once('error', () => resolve(false));
    req.end();
  });
}

async function probe(): Promise<boolean> {
  const host = process.env.DOCKER_HOST;
  if (host !== undefined && host !== '') {
    if (host.startsWith('unix://')) return pings({ socketPath: host.slice('unix://'.length) });
    // A TLS endpoint needs the client certificates testcontainers loads itself; trust it.
    if (host.startsWith('tcp://') && !process.env.DOCKER_TLS_VERIFY) {
      const url = new URL(host.replace(/^tcp:/, 'http:'));
      return pings({ host: url.hostname, port: Number(url.port || 2375) });
    }
    return true; // ssh://, npipe:// or TLS: let testcontainers decide
  }
  return existsSync(DEFAULT_SOCKET) ? pings({ socketPath: DEFAULT_SOCKET }) : false;
}

/**
 * Whether a Docker engine answers, asked once per process. This is a raw `GET /_ping`
 * rather than testcontainers' own discovery so that machines without Docker (CI here)
 * never load testcontainers at all.
 */
export function dockerAnswers(): Promise<boolean> {
  answer ??= probe();
  return answer;
}
