import type { Express } from 'express';
import type { FastLane } from './fast-lane.js';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RunningServer {
  server: Server;
  port: number;
  url: string;
  close(): Promise<void>;
}

/** Starts `app` on host:port (0 picks a free port) and resolves once it listens; `lane` sees each request first. */
export async function listen(app: Express, port: number, host: string, lane?: FastLane): Promise<RunningServer> {
  const server = createServer(lane ? (req, res) => void (lane.handle(req, res) || app(req, res)) : app);
  // Keep-alive longer than common proxies' idle timeouts so they never reuse a closed socket.
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const actual = (server.address() as AddressInfo).port;
  return {
    server,
    port: actual,
    url: `http://${host.includes(':') ? `[${host}]` : host}:${actual}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
