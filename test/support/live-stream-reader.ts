// Opens GET /v1/live with fetch as a test client and keeps every snapshot it reads.
import { readEventStream, type LiveSnapshot } from '@spoor/client';

export interface LiveReading {
  status: number;
  headers: Headers;
  /** The JSON body of a refusal. */
  body: any;
  snapshots: LiveSnapshot[];
  /** `retry:` as read from the stream. */
  retryMs: number | null;
  /** Resolves when the stream ended (by the server or by close()). */
  ended: Promise<void>;
  close(): void;
}

export async function openLive(
  baseUrl: string,
  token: string | null,
  scope: Record<string, string>,
): Promise<LiveReading> {
  const url = new URL('/v1/live', baseUrl);
  for (const [k, v] of Object.entries(scope)) url.searchParams.set(k, v);
  const abort = new AbortController();
  const res = await fetch(url, { headers: token ? { authorization: `Bearer ${token}` } : {}, signal: abort.signal });
  const reading: LiveReading = {
    status: res.status,
    headers: res.headers,
    body: null,
    snapshots: [],
    retryMs: null,
    ended: Promise.resolve(),
    close: () => abort.abort(),
  };
  if (!res.headers.get('content-type')?.startsWith('text/event-stream') || !res.body) {
    reading.body = JSON.parse(await res.text());
    return reading;
  }
  const body = res.body;
  reading.ended = (async () => {
    try {
      for await (const e of readEventStream(body, { onRetry: (ms) => (reading.retryMs = ms) })) {
        if (e.event === 'snapshot') reading.snapshots.push(JSON.parse(e.data) as LiveSnapshot);
      }
    } catch (err) {
      if (!abort.signal.aborted) throw err;
    }
  })();
  return reading;
}

/** The gateway's live_snapshots counter from /metrics: computations since start. */
export async function liveComputations(baseUrl: string): Promise<number> {
  const text = await (await fetch(new URL('/metrics', baseUrl))).text();
  const line = text
    .split('\n')
    .find(
      (l) =>
        l.startsWith('spoor_service_counter{') &&
        l.includes('service="gateway"') &&
        l.includes('counter="live_snapshots"'),
    );
  return line ? Number(line.split(' ').pop()) : 0;
}
