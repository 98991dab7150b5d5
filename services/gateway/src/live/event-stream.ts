// Server-Sent Events on a node:http response (the WHATWG event-stream format): the headers that
// keep proxies from buffering or compressing, `retry:`, frames, and the end of the stream when the
// client leaves, the server closes or the stream is ended here. Plain node:http, so the same code
// serves the fast lane's bare responses and express' (issue 42, target 4).
import type { IncomingMessage, ServerResponse } from 'node:http';
import { onServerClosing } from '@spoor/http';

/**
 * Frames are encoded once and the same bytes written to every viewer (issue 42, item 4): a
 * string written to 2,000 responses was encoded 2,000 times a tick, and that churn of native
 * memory was most of what open streams cost.
 */
export const eventFrame = (event: string, id: string | null, data: string): Buffer =>
  Buffer.from(`event: ${event}\n${id === null ? '' : `id: ${id}\n`}data: ${data}\n\n`);
export const commentFrame = (text: string): Buffer => Buffer.from(`: ${text}\n\n`);

/** What express' `res.type('text/event-stream')` wrote: the HEAD answer's type, and the stream's. */
export const EVENT_STREAM_TYPE = 'text/event-stream; charset=utf-8';

const STREAM_HEADERS = {
  'Content-Type': EVENT_STREAM_TYPE,
  'Cache-Control': 'no-cache, no-transform',
  Connection: 'keep-alive',
  // nginx buffers proxied answers unless told not to.
  'X-Accel-Buffering': 'no',
};

/**
 * One open stream. A class rather than closures over the request: what an open stream keeps in
 * memory is this object, its response and two small listeners, however long it stays open.
 */
export class EventStream {
  private ended = false;
  private readonly unregister: () => void;

  /**
   * Starts the stream: 200 with its headers (`headers`, the CORS ones, first) and `retry:` at once.
   * `onEnd` runs once, whether the client went away, the server began closing or the stream was
   * ended here.
   */
  constructor(
    req: IncomingMessage,
    private readonly res: ServerResponse,
    retryMs: number,
    private readonly onEnd: () => void,
    headers: Record<string, string> = {},
  ) {
    res.writeHead(200, { ...headers, ...STREAM_HEADERS });
    res.flushHeaders();
    req.socket.setNoDelay(true);
    res.write(`retry: ${retryMs}\n\n`);
    // The server is closing: end the answer so the connection goes now, not after the grace period.
    this.unregister = onServerClosing(req, () => this.end());
    // 'close' comes once: `on`, without the wrapper `once` keeps beside the listener.
    res.on('close', () => this.finish(undefined, true));
    // A client that left while its request was being checked: its 'close' came before this
    // listener, and the stream would hold its slot and its seat for good.
    if (req.socket.destroyed) queueMicrotask(() => this.finish(undefined, true));
  }

  send(frame: Buffer): void {
    // A client that does not read keeps no backlog here: a snapshot it missed is replaced by the next.
    if (!this.ended && !this.res.writableNeedDrain) this.res.write(frame);
  }

  /** Sends `frame` (if any), then ends the answer; `onEnd` runs as for any other end. */
  end(frame?: Buffer): void {
    this.finish(frame, false);
  }

  private finish(frame: Buffer | undefined, closed: boolean): void {
    if (this.ended) return;
    this.ended = true;
    this.unregister();
    this.onEnd();
    if (closed) return;
    if (frame && !this.res.writableNeedDrain) this.res.write(frame);
    this.res.end();
  }
}
