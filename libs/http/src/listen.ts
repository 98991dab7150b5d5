import type { Express } from 'express';
import type { FastLane } from './fast-lane.js';
import { STATUS_CODES, createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createError } from './http-errors.js';
import { markServerClosing } from './server-closing.js';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';

export interface RunningServer {
  server: Server;
  port: number;
  url: string;
  /**
   * Stops accepting connections, closes the idle ones, and lets requests under way finish for up
   * to `graceMs` (a SIGTERM, issue 16) before it cuts what is left. Default 0: cut at once.
   */
  close(graceMs?: number): Promise<void>;
}

/** Starts `app` on host:port (0 picks a free port) and resolves once it listens; `lane` sees each request first. */
export async function listen(app: Express, port: number, host: string, lane?: FastLane): Promise<RunningServer> {
  // While closing, every answer says `Connection: close`: no client sends another request on a
  // socket about to go. A boolean, not a list of responses: nothing on ingest's hot path.
  let closing = false;
  const handle = lane
    ? (req: IncomingMessage, res: ServerResponse) => void (lane.handle(req, res) || app(req, res))
    : app;
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    if (closing) res.shouldKeepAlive = false;
    handle(req, res);
  });
  server.on('clientError', answerClientError);
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
    close: (graceMs = 0) =>
      new Promise<void>((resolve) => {
        closing = true;
        server.close(() => {
          clearInterval(sweep);
          clearTimeout(cut);
          resolve();
        });
        // A keep-alive connection between two requests has nothing to finish; one whose answer
        // was under way becomes idle when it is sent, and goes at the next sweep.
        server.closeIdleConnections();
        const sweep = setInterval(() => server.closeIdleConnections(), 50);
        const cut = setTimeout(() => server.closeAllConnections(), graceMs);
        // Event streams end now rather than hold the grace period; their clients reconnect elsewhere.
        markServerClosing(server);
      }),
  };
}

/**
 * Requests node's parser refuses before any route sees them (a request line or headers over
 * 16 KB, a malformed request) get the documented JSON body too, not node's bare status line.
 */
function answerClientError(err: NodeJS.ErrnoException, socket: Duplex): void {
  if (!socket.writable || err.code === 'ECONNRESET') return void socket.destroy();
  const { status, detail } = createError(
    err.code === 'HPE_HEADER_OVERFLOW' ? 'headers_too_large' : 'malformed_request',
  );
  const body = JSON.stringify({ detail });
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}
