import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { isBlockedAddress, systemLookup, type LookupFn } from './ssrf-guard.js';

export interface PostOptions {
  headers?: Record<string, string>;
  /** SPOOR_WEBHOOK_ALLOW_PRIVATE: skip the address checks. */
  allowPrivate: boolean;
  /** The whole exchange, body included. */
  timeoutMs?: number;
  /** Bytes of the answer read at most; the connection is dropped past them. */
  maxResponseBytes?: number;
  userAgent?: string;
  lookup?: LookupFn;
}

export interface DeliveryOutcome {
  ok: boolean;
  status: number | null;
  duration_ms: number;
  /** The answer, cut at maxResponseBytes. */
  response_body: string;
  retry_after_ms: number | null;
  error: string | null;
  /** Retrying cannot help (410 Gone, a refused target): the caller gives up, or disables the endpoint on 410. */
  permanent: boolean;
}

/** Retry-After as delta seconds or an HTTP date (RFC 9110, 10.2.3), in ms from now; null when absent or unreadable. */
export function parseRetryAfter(value: string | undefined, now = Date.now()): number | null {
  if (!value) return null;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}

/**
 * The DNS step of the connection itself, so the address check holds for the address actually
 * dialled: a name that resolved publicly when the webhook was saved and privately now (DNS
 * rebinding) is refused here.
 */
function guardedLookup(lookup: LookupFn): LookupFunction {
  return ((hostname: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
    lookup(hostname).then(
      (addresses) => {
        const blocked = addresses.find(isBlockedAddress);
        if (blocked)
          return callback(
            Object.assign(new Error('refused: the target is not a public address'), { code: 'ESPOORBLOCKED' }),
          );
        if (addresses.length === 0)
          return callback(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }));
        const all = addresses.map((address) => ({ address, family: isIP(address) }));
        if (options?.all) callback(null, all);
        else callback(null, all[0]!.address, all[0]!.family);
      },
      (err: unknown) => callback(err),
    );
  }) as unknown as LookupFunction;
}

const failure = (started: number, error: string, permanent = false): DeliveryOutcome => ({
  ok: false,
  status: null,
  duration_ms: Date.now() - started,
  response_body: '',
  retry_after_ms: null,
  error,
  permanent,
});

/**
 * POSTs JSON to a user-given URL and never throws: a 2xx is success; redirects are not
 * followed; 410 is permanent; everything else (other statuses, timeouts, refused connections)
 * is a retryable failure described in `error`.
 */
export function postJson(url: string, body: string, opts: PostOptions): Promise<DeliveryOutcome> {
  const started = Date.now();
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    return Promise.resolve(failure(started, 'not a URL', true));
  }
  if (target.protocol !== 'http:' && target.protocol !== 'https:')
    return Promise.resolve(failure(started, 'only http and https targets are allowed', true));
  const host = target.hostname.replace(/^\[|\]$/g, '');
  if (!opts.allowPrivate && isIP(host) && isBlockedAddress(host))
    return Promise.resolve(failure(started, 'refused: the target is not a public address', true));
  const timeoutMs = opts.timeoutMs ?? 15_000;
  const cap = opts.maxResponseBytes ?? 64 * 1024;
  const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve) => {
    let settled = false;
    const finish = (o: DeliveryOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(o);
    };
    const req = send(
      target,
      {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
          'user-agent': opts.userAgent ?? 'Spoor',
          ...opts.headers,
        },
        ...(opts.allowPrivate ? {} : { lookup: guardedLookup(opts.lookup ?? systemLookup) }),
      },
      (res) => readAnswer(res, cap, started, finish, () => req.destroy()),
    );
    const timer = setTimeout(() => {
      finish(failure(started, `timed out after ${timeoutMs} ms`));
      req.destroy();
    }, timeoutMs);
    req.on('error', (err: NodeJS.ErrnoException) =>
      finish(failure(started, err.message, err.code === 'ESPOORBLOCKED')),
    );
    req.end(body);
  });
}

function readAnswer(
  res: IncomingMessage,
  cap: number,
  started: number,
  finish: (o: DeliveryOutcome) => void,
  drop: () => void,
): void {
  const chunks: Buffer[] = [];
  let size = 0;
  const done = () => {
    const status = res.statusCode ?? 0;
    const text = Buffer.concat(chunks).subarray(0, cap).toString('utf8');
    const redirect = status >= 300 && status < 400;
    const error =
      status >= 200 && status < 300
        ? null
        : redirect
          ? `redirect not followed (${status} to ${res.headers.location ?? 'nowhere'})`
          : `HTTP ${status}`;
    finish({
      ok: error === null,
      status,
      duration_ms: Date.now() - started,
      response_body: text,
      retry_after_ms: parseRetryAfter(res.headers['retry-after']),
      error,
      permanent: status === 410,
    });
  };
  res.on('data', (c: Buffer) => {
    chunks.push(c);
    size += c.length;
    if (size >= cap) {
      done();
      drop();
    }
  });
  res.on('end', done);
  res.on('error', done);
}
