import { connect, type Socket } from 'node:net';
import { createServer, type TLSSocket } from 'node:tls';
import type { StartedEngine } from '../started-engine.js';
import type { PemPair, TestPki } from './test-pki.js';

/**
 * A TLS-terminating proxy on a loopback port in front of a plaintext `target` URL (issue 46):
 * the ClickHouse stand-in behind https, for the client side of TLS. The URL keeps the target's
 * path with https://; client certificates are asked for, and checked when given.
 */
export function startTlsProxy(target: string, pki: TestPki, server: PemPair = pki.server): Promise<StartedEngine> {
  const { hostname, port, pathname } = new URL(target);
  const sockets = new Set<Socket>();
  const proxy = createServer(
    { cert: server.cert, key: server.key, ca: pki.ca, requestCert: true, rejectUnauthorized: false },
    (client: TLSSocket) => {
      const upstream = connect({ host: hostname, port: Number(port) });
      for (const s of [client, upstream]) {
        sockets.add(s);
        s.once('close', () => sockets.delete(s));
        s.on('error', () => {
          client.destroy();
          upstream.destroy();
        });
      }
      client.pipe(upstream).pipe(client);
    },
  );
  // A failed handshake (the test's untrusted clients) is the client's business, not the proxy's.
  proxy.on('tlsClientError', () => undefined);
  return new Promise((resolve, reject) => {
    proxy.once('error', reject);
    proxy.listen(0, '127.0.0.1', () => {
      const address = proxy.address();
      const at = typeof address === 'object' && address ? address.port : 0;
      resolve({
        url: `https://127.0.0.1:${at}${pathname === '/' ? '' : pathname}`,
        stop: () =>
          new Promise<void>((done) => {
            for (const s of sockets) s.destroy();
            proxy.close(() => done());
          }),
      });
    });
  });
}
