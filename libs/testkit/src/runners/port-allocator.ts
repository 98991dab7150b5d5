import { createServer } from 'node:net';

/**
 * A TCP port on 127.0.0.1 that was free a moment ago. Engines whose config must name
 * their ports up front (Kafka's listeners, redis-server's --port, where 0 means "no TCP")
 * get one of these; the kernel hands out ephemeral ports in a spread-out order, so the
 * window between closing it here and the engine binding it is rarely contested. The chDB
 * server binds port 0 itself and reports the port back instead.
 */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', reject);
    server.listen({ host: '127.0.0.1', port: 0, exclusive: true }, () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => (port > 0 ? resolve(port) : reject(new Error('no port assigned'))));
    });
  });
}
