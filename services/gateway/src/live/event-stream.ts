// Server-Sent Events on an express response (the WHATWG event-stream format): the headers that
// keep proxies from buffering or compressing, `retry:`, frames, and the end of the stream when the
// client leaves or the server closes.
import type { Request, Response } from 'express';
import { onServerClosing } from '@spoor/http';

export const eventFrame = (event: string, id: string, data: string): string =>
  `event: ${event}\nid: ${id}\ndata: ${data}\n\n`;
export const commentFrame = (text: string): string => `: ${text}\n\n`;

export interface EventStream {
  send(frame: string): void;
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
  const finish = () => {
    if (ended) return;
    ended = true;
    unregister();
    onEnd();
  };
  // The server is closing: end the answer so the connection goes now, not after the grace period.
  const unregister = onServerClosing(req, () => {
    finish();
    res.end();
  });
  res.on('close', finish);
  return {
    send(frame) {
      // A client that does not read keeps no backlog here: a snapshot it missed is replaced by the next.
      if (!ended && !res.writableNeedDrain) res.write(frame);
    },
  };
}
