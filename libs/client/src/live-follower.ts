// Follows GET /v1/live (issue 18): one connection at a time, reconnecting after the server's
// `retry:` when the stream drops (a gateway restart), and giving up on an answer that will not
// change by retrying (401, 404, 422).
import type { components } from './api-types.js';
import { readEventStream } from './event-stream-reader.js';

export type LiveSnapshot = components['schemas']['LiveSnapshot'];

export interface LiveFollowOptions {
  baseUrl: string;
  token: string | null;
  origin: string;
  project: string;
  signal: AbortSignal;
  onSnapshot(snapshot: LiveSnapshot): void;
  /** 'connected', or 'reconnecting' after a drop (with the wait in ms). */
  onState?(state: 'connected' | 'reconnecting', waitMs: number): void;
  fetch?: typeof fetch;
}

/** A refusal with the server's JSON detail; not retried. */
export class LiveStreamError extends Error {
  constructor(
    readonly status: number,
    readonly detail: unknown,
  ) {
    super(typeof detail === 'string' ? detail : `GET /v1/live answered ${status}`);
    this.name = 'LiveStreamError';
  }
}

const FINAL = new Set([400, 401, 403, 404, 422]);

/** Resolves when `signal` aborts; rejects with LiveStreamError on a final refusal. */
export async function followLive(opts: LiveFollowOptions): Promise<void> {
  let retryMs = 3000;
  while (!opts.signal.aborted) {
    try {
      await streamOnce(opts, (ms) => (retryMs = ms));
    } catch (err) {
      if (err instanceof LiveStreamError && FINAL.has(err.status)) throw err;
      if (opts.signal.aborted) return;
    }
    if (opts.signal.aborted) return;
    opts.onState?.('reconnecting', retryMs);
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, retryMs);
      opts.signal.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true });
    });
  }
}

async function streamOnce(opts: LiveFollowOptions, onRetry: (ms: number) => void): Promise<void> {
  const url = new URL('/v1/live', opts.baseUrl);
  url.searchParams.set('origin', opts.origin);
  url.searchParams.set('project', opts.project);
  const headers: Record<string, string> = { accept: 'text/event-stream' };
  if (opts.token) headers['authorization'] = `Bearer ${opts.token}`;
  const res = await (opts.fetch ?? fetch)(url, { headers, signal: opts.signal });
  if (!res.ok || !res.body) {
    const text = await res.text().catch(() => '');
    let detail: unknown = text;
    try {
      detail = (JSON.parse(text) as { detail?: unknown }).detail ?? text;
    } catch {
      /* not JSON */
    }
    throw new LiveStreamError(res.status, detail);
  }
  opts.onState?.('connected', 0);
  for await (const event of readEventStream(res.body, { onRetry })) {
    if (event.event === 'snapshot') opts.onSnapshot(JSON.parse(event.data) as LiveSnapshot);
  }
}
