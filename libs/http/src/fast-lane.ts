import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Express, RequestHandler } from 'express';
import proxyaddr from 'proxy-addr';
import type { Logger } from '@spoor/service-log';
import { corsHeaders, corsMiddleware } from './cors-middleware.js';
import { parseJsonBody } from './body-parser.js';
import { HttpError, errors } from './http-errors.js';
import { stringifyOrFallback } from './safe-json.js';

/** What a fast route gets: the parsed JSON body (undefined when empty), the request, and the body's size when known. */
export type FastHandler = (body: unknown, req: IncomingMessage, ip: string, bodyBytes?: number) => Promise<unknown>;

/**
 * A fast route that writes its own answer (an event stream), given the query string parsed as
 * express' `req.query` would be, and `headers`, the CORS headers every answer carries, for its
 * `writeHead`. What it throws before the answer started gets the catalogue's body with them.
 */
export type FastStreamHandler = (
  req: IncomingMessage,
  res: ServerResponse,
  query: unknown,
  headers: Record<string, string>,
) => Promise<void>;

/** A fast GET route's answer, computed in memory (a probe): no engine, no await. */
export interface FastAnswer {
  status: number;
  headers?: Record<string, string>;
  body: unknown;
}

const JSON_MEDIA = new Set(['application/json', 'text/plain']);
const UTF8 = new Set(['utf-8', 'utf8', 'us-ascii']);

/**
 * A bare node:http path for the few hot POST routes (the ingest endpoints), the probes' GETs and
 * the live view's event stream, beside the express app: a CPU profile of ingest put about half of
 * each request's time in express' per-request machinery (docs/performance.md). It keeps what the
 * express path does — the same CORS middleware, `trust proxy` client IPs through proxy-addr with
 * express' own compiled setting and its `query parser`, the body rules of jsonBody (JSON or
 * text/plain, 415, 413, 400) and the error catalogue's bodies — and hands anything unusual (a query
 * string aside, another path or method, a compressed body, a charset other than UTF-8) to express
 * untouched.
 */
export class FastLane {
  private readonly routes = new Map<string, { handler: FastHandler; limitBytes: number }>();
  private readonly gets = new Map<string, () => FastAnswer>();
  private readonly streams = new Map<string, FastStreamHandler>();
  private readonly cors: RequestHandler[] = corsMiddleware();

  /** `observe` hears of every request this lane answered, with its route, status and duration. */
  constructor(
    private readonly app: Express,
    private readonly logger: Logger,
    private readonly observe: (method: string, route: string, status: number, seconds: number) => void = () => {},
  ) {}

  add(path: string, handler: FastHandler, limitBytes: number): void {
    this.routes.set(path, { handler, limitBytes });
  }

  /**
   * A GET answered from memory (the probes: a load balancer asks /healthz many times a second,
   * and express' machinery was most of its cost, issue 15). HEAD, a trailing slash and any other
   * method on the path stay with express, whose router serves the same answer.
   */
  addGet(path: string, answer: () => FastAnswer): void {
    this.gets.set(path, answer);
  }

  /**
   * GET and HEAD of `path` answered by a handler that writes the answer itself: a long-lived one,
   * the live view's event stream (issue 42, target 4). Express sets the prototype of every request
   * and response it sees (`Object.setPrototypeOf`), and V8 then gives each its own hidden class:
   * ~2 KiB of heap more for as long as a stream is open, beside express' own per-request state.
   * A trailing slash and the other methods stay with express, whose router should serve the same.
   */
  addStream(path: string, handler: FastStreamHandler): void {
    this.streams.set(path, handler);
  }

  /** True when the request was taken here; false leaves it to express (nothing was read). */
  handle(req: IncomingMessage, res: ServerResponse): boolean {
    if (req.method === 'GET' || req.method === 'HEAD') return this.handleRead(req, res);
    if (req.method !== 'POST' || this.routes.size === 0) return false;
    const path = pathOf(req);
    const route = this.routes.get(path);
    if (!route || !this.plainBody(req)) return false;
    this.begin(path, req, res);
    // run() catches everything it can; this is the last net for a fault inside its own catch.
    this.run(route.handler, route.limitBytes, req, res).catch((err: unknown) => {
      this.logger.error('fast lane failed', { err });
      if (!res.headersSent) sendError(res, errors.internal());
      else res.destroy();
    });
    return true;
  }

  private handleRead(req: IncomingMessage, res: ServerResponse): boolean {
    if (this.gets.size === 0 && this.streams.size === 0) return false;
    const path = pathOf(req);
    const stream = this.streams.get(path);
    if (stream) return this.serveStream(stream, path, req, res);
    const answer = req.method === 'GET' ? this.gets.get(path) : undefined;
    if (!answer) return false;
    this.begin(path, req, res);
    req.resume(); // a GET's body, if any, is not read (as express)
    try {
      const { status, headers, body } = answer();
      send(res, status, headers ?? {}, body);
    } catch (err) {
      this.logger.error('unhandled error', { err, method: req.method, path: req.url });
      sendError(res, errors.internal());
    }
    return true;
  }

  /**
   * The CORS headers go to the handler rather than onto the response: once `setHeader` was used,
   * node keeps the response's header map for as long as it is open, ~1 KiB a stream; headers
   * handed to `writeHead` alone are written and let go.
   */
  private serveStream(handler: FastStreamHandler, path: string, req: IncomingMessage, res: ServerResponse): true {
    this.observed(path, req, res);
    req.resume(); // a GET's body, if any, is not read (as express)
    const headers = corsHeaders(req.headers.origin);
    const url = req.url ?? '';
    const at = url.indexOf('?');
    // express' own compiled `query parser` setting, as for `trust proxy` above.
    const parseQuery = this.app.get('query parser fn') as (text: string) => unknown;
    const run = async () => handler(req, res, parseQuery(at === -1 ? '' : url.slice(at + 1)), headers);
    run().catch((err: unknown) => {
      const known = err instanceof HttpError ? err : null;
      // As express' error handler logs it: the path, not the query.
      if (!known) this.logger.error('unhandled error', { err, method: req.method, path });
      const e = known ?? errors.internal();
      if (!res.headersSent) send(res, e.status, { ...headers, ...e.headers }, { detail: e.detail });
      else res.destroy();
    });
    return true;
  }

  /** What every answer of the lane gets before its handler runs: its metric and the CORS headers. */
  private begin(path: string, req: IncomingMessage, res: ServerResponse): void {
    this.observed(path, req, res);
    for (const step of this.cors) step(req as never, res as never, () => {});
  }

  /** The answer's metric once it finished ('finish' comes once: `on`, without `once`'s wrapper). */
  private observed(path: string, req: IncomingMessage, res: ServerResponse): void {
    const start = process.hrtime.bigint();
    const method = req.method ?? '';
    res.on('finish', () => this.observe(method, path, res.statusCode, Number(process.hrtime.bigint() - start) / 1e9));
  }

  /** Headers this lane reads bodies for: no content coding, UTF-8 (or no charset). */
  private plainBody(req: IncomingMessage): boolean {
    const coding = req.headers['content-encoding'];
    if (coding && coding !== 'identity') return false;
    const charset = /;\s*charset\s*=\s*"?([^";\s]+)/i.exec(req.headers['content-type'] ?? '')?.[1]?.toLowerCase();
    return charset === undefined || UTF8.has(charset);
  }

  private async run(
    handler: FastHandler,
    limitBytes: number,
    req: IncomingMessage,
    res: ServerResponse,
  ): Promise<void> {
    try {
      const { value, bytes } = await readJson(req, limitBytes);
      const ip = proxyaddr(req, this.app.get('trust proxy fn')) ?? req.socket.remoteAddress ?? '';
      send(res, 200, {}, await handler(value, req, ip, bytes));
    } catch (err) {
      const known = err instanceof HttpError ? err : null;
      if (!known) this.logger.error('unhandled error', { err, method: req.method, path: req.url });
      const e = known ?? errors.internal();
      if (e.status === 413 || e.status === 400) res.setHeader('Connection', 'close'); // the rest of the body is not read
      sendError(res, e);
    }
  }
}

function pathOf(req: IncomingMessage): string {
  const url = req.url ?? '';
  const q = url.indexOf('?');
  return q === -1 ? url : url.slice(0, q);
}

/** jsonBody's rules on a raw stream. */
function readJson(req: IncomingMessage, limitBytes: number): Promise<{ value: unknown; bytes: number }> {
  const length = Number(req.headers['content-length'] ?? 0);
  const hasBody = length > 0 || req.headers['transfer-encoding'] !== undefined;
  if (!hasBody) return (req.resume(), Promise.resolve({ value: undefined, bytes: 0 }));
  const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  if (!JSON_MEDIA.has(type) && !/^application\/[^/]+\+json$/.test(type)) {
    return Promise.reject(errors.unsupportedMediaType(req.headers['content-type'], 'application/json or text/plain'));
  }
  if (length > limitBytes) return Promise.reject(errors.bodyTooLarge(limitBytes));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > limitBytes) {
        req.removeAllListeners('data');
        req.pause();
        reject(errors.bodyTooLarge(limitBytes));
        return;
      }
      chunks.push(c);
    });
    const aborted = () => reject(errors.requestAborted());
    req.on('aborted', aborted);
    req.on('error', aborted);
    req.on('end', () => {
      const raw = Buffer.concat(chunks)
        .toString('utf8')
        .replace(/^\uFEFF/, ''); // as body-parser's decoder
      if (raw.trim() === '') return resolve({ value: undefined, bytes: size });
      try {
        resolve({ value: parseJsonBody(raw), bytes: size });
      } catch (err) {
        reject(err);
      }
    });
  });
}

/** error-handler.ts' sendError on a bare response: the catalogue's status, headers and body. */
function sendError(res: ServerResponse, e: HttpError): void {
  send(res, e.status, e.headers, { detail: e.detail });
}

function send(res: ServerResponse, status: number, headers: Record<string, string>, value: unknown): void {
  if (res.headersSent) return;
  const { body, ok } = stringifyOrFallback(value);
  res.writeHead(ok ? status : 500, {
    ...(ok ? headers : {}),
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(body),
  });
  res.end(body);
}
