// Server-Sent Events on an express response (the WHATWG event-stream format): the headers that
// keep proxies from buffering or compressing, `retry:`, frames, and the end of the stream when the
// client leaves, the server closes or the stream is ended here.
import type { Request, Response } from 'express';
import { onServerClosing } from '@spoor/http';

/**
 * Frames are encoded once and the same bytes written to every viewer (issue 42, item 4): a
 * string written to 2,000 responses was encoded 2,000 times a tick, and that churn of native
 * memory was most of what open streams cost.
 */
export const eventFrame = (event: string, id: string | null, data: string): Buffer =>
  Buffer.from(`event: ${event}\n${id === null ? '' : `id: ${id}\n`}data: ${data}\n\n`);
export const commentFrame = (text: string): Buffer => Buffer.from(`: ${text}\n\n`);

export interface EventStream {
  send(frame: Buffer): void;
  /** Sends `frame` (if any), then ends the answer; `onEnd` runs as for any other end. */
  end(frame?: Buffer): void;
}

/**
 * Starts the stream: 200 with its headers and `retry:` at once. `onEnd` runs once, whether the
 * client went away, the server began closing or the stream was ended here.
 */
export function openEventStream(req: Request, res: Response, retryMs: number, onEnd: () => void): EventStream {
  res.status(200).set({
    'Content-Type': 'text/event-stream; charset=utf-8',
    'Cache-Control': 'no-cache, no-transform',
    Connection: 'keep-alive',
    // nginx buffers proxied answers unless told not to.
    'X-Accel-Buffering': 'no',
  });
  res.flushHeaders();
  req.socket.setNoDelay(true);
  res.write(`retry: ${retryMs}\n\n`);
  let ended = false;
  const end = (frame?: Buffer, closed = false) => {
    if (ended) return;
    ended = true;
    unregister();
    onEnd();
    if (closed) return;
    if (frame && !res.writableNeedDrain) res.write(frame);
    res.end();
  };
  // The server is closing: end the answer so the connection goes now, not after the grace period.
  const unregister = onServerClosing(req, () => end());
  res.on('close', () => end(undefined, true));
  return {
    send(frame) {
      // A client that does not read keeps no backlog here: a snapshot it missed is replaced by the next.
      if (!ended && !res.writableNeedDrain) res.write(frame);
    },
    end: (frame) => end(frame),
  };
}
