import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ChatPoster } from '../src/chat-payload.js';

export interface ReceivedPost {
  method: string;
  path: string;
  contentType: string | undefined;
  json: Record<string, unknown>;
}

export interface WebhookReceiver {
  url: string;
  received: ReceivedPost[];
  /** Status the next requests are answered with. */
  status: number;
  close(): Promise<void>;
}

/** A node:http server on 127.0.0.1, port 0, standing in for a chat platform's webhook endpoint. */
export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const receiver = { received: [] as ReceivedPost[], status: 200 };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      receiver.received.push({
        method: req.method ?? '',
        path: req.url ?? '',
        contentType: req.headers['content-type'],
        json: JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>,
      });
      res
        .writeHead(receiver.status, { 'content-type': 'text/plain' })
        .end(receiver.status === 200 ? 'ok' : 'invalid_payload');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(receiver, {
    url: `http://127.0.0.1:${port}/hooks/T000/B000`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  });
}

/** The simplest poster: fetch, JSON, outcome. The service injects an SSRF-guarded one instead. */
export const fetchPoster: ChatPoster = async (url, body) => {
  try {
    const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    await res.arrayBuffer();
    return { ok: res.ok, status: res.status, error: res.ok ? null : `HTTP ${res.status}` };
  } catch (err) {
    return { ok: false, status: null, error: err instanceof Error ? err.message : String(err) };
  }
};
