// followLive and the event-stream reader against a plain node:http server (issue 18): fields
// split across chunks, CRLF, comments and multi-line data; reconnecting after the server's
// `retry:` when a stream ends; the bearer header and scope sent; a refusal not retried.
import { expect } from 'chai';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { followLive, LiveStreamError, readEventStream, type LiveSnapshot } from '../src/index.js';

const snap = (at: number): LiveSnapshot => ({
  origin: 'http://localhost:1',
  project: 'a/b',
  at,
  window_ms: 300_000,
  interval_ms: 2000,
  visitors: at,
  pages: [],
  events: [],
});

async function serve(
  handler: (req: IncomingMessage, res: ServerResponse, n: number) => void,
): Promise<{ server: Server; url: string }> {
  let n = 0;
  const server = createServer((req, res) => handler(req, res, n++));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

describe('followLive and readEventStream', function () {
  let server: Server | undefined;
  afterEach(() => {
    server?.closeAllConnections();
    server?.close();
  });

  it('parses frames split across chunks, CRLF, comments and multi-line data', async () => {
    const chunks = [
      'retry: 10\r',
      '\n\r\n: keep-alive\n\nevent: snap',
      'shot\r',
      '\nid: 7\ndata: {"a":\ndata: 1}\n',
      '\ndata: plain\n\n',
    ];
    const body = new ReadableStream<Uint8Array>({
      start(c) {
        for (const s of chunks) c.enqueue(new TextEncoder().encode(s));
        c.close();
      },
    });
    let retry = 0;
    const events = [];
    for await (const e of readEventStream(body, { onRetry: (ms) => (retry = ms) })) events.push(e);
    expect(retry).to.equal(10);
    expect(events).to.deep.equal([
      { event: 'snapshot', data: '{"a":\n1}', id: '7' },
      { event: 'message', data: 'plain', id: null },
    ]);
  });

  it('reconnects after the retry the server sent when a stream ends, with the token and scope each time', async () => {
    const seen: string[] = [];
    ({ server } = await serve((req, res, n) => {
      seen.push(`${req.headers.authorization} ${req.url}`);
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('retry: 50\n\n');
      res.write(`event: snapshot\nid: ${n}\ndata: ${JSON.stringify(snap(n + 1))}\n\n`);
      if (n === 0) res.end(); // a dropped stream (a gateway restart)
    }));
    const abort = new AbortController();
    const got: number[] = [];
    const states: string[] = [];
    await followLive({
      baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      token: 'tok',
      origin: 'http://localhost:1',
      project: 'a/b',
      signal: abort.signal,
      onSnapshot: (s) => (got.push(s.at), got.length === 2 && abort.abort()),
      onState: (state, ms) => states.push(`${state} ${ms}`),
    });
    expect(got).to.deep.equal([1, 2]);
    expect(states).to.deep.equal(['connected 0', 'reconnecting 50', 'connected 0']);
    expect(seen).to.deep.equal(Array(2).fill('Bearer tok /v1/live?origin=http%3A%2F%2Flocalhost%3A1&project=a%2Fb'));
  });

  it("gives up on a refusal with the server's detail", async () => {
    let calls = 0;
    ({ server } = await serve((_req, res) => {
      calls++;
      res.writeHead(404, { 'content-type': 'application/json' }).end('{"detail":"Project not found"}');
    }));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const err = await followLive({
      baseUrl: url,
      token: null,
      origin: 'o',
      project: 'p',
      signal: new AbortController().signal,
      onSnapshot: () => {},
    }).catch((e: unknown) => e);
    expect(err).to.be.instanceOf(LiveStreamError);
    expect([(err as LiveStreamError).status, (err as LiveStreamError).message, calls]).to.deep.equal([
      404,
      'Project not found',
      1,
    ]);
  });
});
