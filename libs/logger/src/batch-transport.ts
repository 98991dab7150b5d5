import { read, write } from './browser-storage.js';
import type { QueuedEvent } from './logger-types.js';

const KEY = 'spoor_queue';
/** Events per request: 20 events of at most 32 KiB stay under the 1 MiB body limit. */
const BATCH = 20;
const MAX_BACKOFF_MS = 60_000;
/** Chrome refuses keepalive bodies over 64 KiB in flight; larger ones go without it. */
const KEEPALIVE_LIMIT = 60_000;

/** The request body; `sent_at` is the client clock at this attempt, which corrects clock skew. */
const body = (events: QueuedEvent[]) => {
  const sentAt = Date.now();
  return JSON.stringify({ events: events.map((e) => ({ ...e, sent_at: sentAt })) });
};

export interface BatchTransport {
  add(event: QueuedEvent): void;
  clear(): void;
  flush(): Promise<void>;
  /** The page is going away: hand every waiting event to the browser, which sends it after the page is gone. */
  leave(): void;
}

/**
 * Batches events to POST /v1/event/batch as text/plain (no CORS preflight, and what sendBeacon
 * sends). Unsent events survive a reload in sessionStorage. A network error, 429 or 5xx keeps
 * the batch and retries with exponential backoff and jitter; coming back online retries at
 * once. Every event carries its event_id, so a batch sent twice is stored once. (A closure, not
 * a class: it minifies smaller, and the bundle has a size budget.)
 */
export function batchTransport(url: string, delayMs: number): BatchTransport {
  let queue: QueuedEvent[] = read<QueuedEvent[]>('sessionStorage', KEY) || [];
  let timer: ReturnType<typeof setTimeout> | 0 = 0;
  let sending = false;
  let failures = 0;
  const post = (text: string, keepalive: boolean) =>
    fetch(url, {
      method: 'POST',
      body: text,
      keepalive,
      credentials: 'omit',
      headers: { 'content-type': 'text/plain' },
    });
  const save = () => write('sessionStorage', KEY, queue.length ? queue : null);
  const schedule = (ms: number) => {
    if (timer && ms > 0) return;
    clearTimeout(timer);
    timer = setTimeout(() => {
      timer = 0;
      void flush();
    }, ms);
  };
  const flush = async () => {
    if (sending || !queue.length || !navigator.onLine) return;
    const batch = queue.slice(0, BATCH);
    const text = body(batch);
    sending = true;
    let retry: boolean;
    try {
      const res = await post(text, text.length < KEEPALIVE_LIMIT);
      retry = res.status === 429 || res.status >= 500;
    } catch {
      retry = true;
    }
    sending = false;
    if (retry) return schedule(Math.min(MAX_BACKOFF_MS, 500 * 2 ** ++failures) * (0.5 + Math.random() / 2));
    // Delivered, or refused for good (a 4xx other than 429 will not change on a retry).
    failures = 0;
    queue = queue.filter((e) => !batch.includes(e));
    save();
    if (queue.length) schedule(0);
  };
  const clear = () => {
    queue = [];
    save();
  };
  addEventListener('online', () => void flush());
  if (queue.length) schedule(0);
  return {
    add(event) {
      queue.push(event);
      save();
      schedule(queue.length >= BATCH ? 0 : delayMs);
    },
    clear,
    flush,
    leave() {
      if (!queue.length || !navigator.onLine) return;
      const text = body(queue);
      if (!navigator.sendBeacon(url, text)) post(text, true).catch(() => {});
      clear();
    },
  };
}
