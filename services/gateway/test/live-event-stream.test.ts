// An event stream on a bare node:http server (issue 42, target 4): its headers and `retry:`, its end
// once (client gone, server closing, ended here), and a client that left while its request was
// checked, whose stream must not hold its slot.
import { expect } from 'chai';
import { request, type IncomingMessage, type ServerResponse } from 'node:http';
import { listen, type RunningServer } from '@spoor/http';
import express from 'express';
import { EventStream, commentFrame, eventFrame } from '../src/live/event-stream.js';

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

describe('EventStream', function () {
  let server: RunningServer;
  let handle: Handler = () => {};

  beforeEach(async () => {
    const app = express();
    app.use((req, res) => handle(req, res));
    server = await listen(app, 0, '127.0.0.1');
  });

  afterEach(() => server.close(0));

  /** Opens a request and resolves with its answer's head and the first `bytes` of its body. */
  const open = (bytes: number) =>
    new Promise<{ status: number; headers: Record<string, unknown>; text: string; close: () => void }>(
      (resolve, reject) => {
        const req = request(`${server.url}/live`, { agent: false }, (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (c: string) => {
            text += c;
            if (text.length >= bytes)
              resolve({ status: res.statusCode ?? 0, headers: res.headers, text, close: () => req.destroy() });
          });
          res.on('error', () => {});
        });
        req.on('error', reject);
        req.end();
      },
    );

  it('answers 200 with the stream headers and `retry:`, sends frames, and ends once', async () => {
    let ends = 0;
    let stream: EventStream | undefined;
    handle = (req, res) => {
      stream = new EventStream(req, res, 3000, () => ends++);
      stream.send(commentFrame('keep-alive'));
    };
    const answer = await open('retry: 3000\n\n: keep-alive\n\n'.length);
    expect(answer.status).to.equal(200);
    expect(answer.headers).to.include({
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache, no-transform',
      'x-accel-buffering': 'no',
    });
    expect(answer.text).to.equal('retry: 3000\n\n: keep-alive\n\n');
    stream!.end(eventFrame('end', null, '{}'));
    stream!.end();
    answer.close();
    await new Promise((r) => setTimeout(r, 50));
    expect(ends).to.equal(1);
  });

  it('ends when the client leaves, and when the server starts closing', async () => {
    let ends = 0;
    handle = (req, res) => void new EventStream(req, res, 3000, () => ends++);
    const first = await open(1);
    first.close();
    await new Promise((r) => setTimeout(r, 100));
    expect(ends).to.equal(1);
    await open(1);
    await server.close(30_000);
    expect(ends).to.equal(2);
  });

  it('ends at once when the client left while its request was being checked', async () => {
    let ends = 0;
    const left = new Promise<void>((resolve) => {
      handle = (req, res) => {
        // The stream opens only after the client is gone, as after a slow credential check.
        res.once('close', () =>
          setTimeout(() => {
            new EventStream(req, res, 3000, () => ends++);
            setTimeout(resolve, 50);
          }, 20),
        );
      };
    });
    const req = request(`${server.url}/live`, { agent: false });
    req.on('error', () => {});
    req.end();
    await new Promise((r) => setTimeout(r, 100));
    req.destroy();
    await left;
    expect(ends).to.equal(1);
  });
});
