// Long-lived answers (the live view's Server-Sent Events) never become idle, so a closing server
// would wait its whole grace period for them (listen.ts close(graceMs)). They register here and
// are told to end as soon as close() starts; requests under way still get their grace.
import type { IncomingMessage, Server } from 'node:http';
import type { Socket } from 'node:net';

const closing = new WeakSet<Server>();
const listeners = new WeakMap<Server, Set<() => void>>();

/** Called by listen()'s close(): ends every registered long-lived answer of `server`. */
export function markServerClosing(server: Server): void {
  closing.add(server);
  const ends = listeners.get(server);
  listeners.delete(server);
  for (const end of ends ?? []) end();
}

/**
 * Calls `end` once the server that accepted `req` starts closing (at once, asynchronously, if it
 * already is). Returns the unregistration, for an answer that ended by itself.
 */
export function onServerClosing(req: IncomingMessage, end: () => void): () => void {
  // node sets `server` on every socket a net.Server accepts.
  const server = (req.socket as Socket & { server?: Server }).server;
  if (!server) return () => {};
  if (closing.has(server)) {
    queueMicrotask(end);
    return () => {};
  }
  let ends = listeners.get(server);
  if (!ends) listeners.set(server, (ends = new Set()));
  ends.add(end);
  return () => void ends.delete(end);
}
