import type { RequestHandler } from 'express';
import { errors } from './http-errors.js';

/** The parts of express 5's router (router 2.x) that say which methods a path has. */
interface RouterLayer {
  /** `path`: the part of the path a mounted router's layer matched. */
  match(path: string): false | { path: string };
  route?: { methods: Record<string, boolean | undefined> };
  handle: { stack?: RouterLayer[] };
}

/** Methods of every route in `stack` (and the routers mounted in it) that match `path`. */
function methodsAt(stack: RouterLayer[], path: string, into: Set<string>): void {
  for (const layer of stack) {
    const matched = layer.match(path);
    if (!matched) continue;
    if (layer.route) {
      for (const [method, on] of Object.entries(layer.route.methods))
        if (on && method !== '_all') into.add(method.toUpperCase());
    } else if (layer.handle.stack) {
      methodsAt(layer.handle.stack, path.slice(matched.path.length) || '/', into);
    }
  }
}

const ORDER = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];
/** Allow in one order whatever the order of registration; other methods last. */
const order = (method: string) => (ORDER.includes(method) ? ORDER.indexOf(method) : ORDER.length);

/**
 * A path that exists without the request's method answers 405 with `Allow` (RFC 9110, 15.5.6),
 * as FastAPI does, rather than the 404 of a path that does not exist (issue 20). Routers are
 * asked at the time of the request, so every route of every service in the process counts,
 * however it was mounted. Runs after every router, before the 404.
 */
export const methodNotAllowedHandler: RequestHandler = (req, _res, next) => {
  const stack = (req.app as unknown as { router?: { stack?: RouterLayer[] } }).router?.stack;
  const methods = new Set<string>();
  try {
    if (stack) methodsAt(stack, req.path, methods);
  } catch {
    return next(); // a path parameter that does not decode names no route: 404 as before
  }
  if (methods.size === 0 || methods.has(req.method)) return next();
  // Every path answers OPTIONS (cors-middleware.ts), and express answers HEAD for every GET.
  if (methods.has('GET')) methods.add('HEAD');
  methods.add('OPTIONS');
  next(errors.methodNotAllowed([...methods].sort((a, b) => order(a) - order(b))));
};
