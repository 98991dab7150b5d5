import { expect } from 'chai';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseRetryAfter, postJson } from '../src/index.js';

interface Endpoint {
  url: string;
  hits: string[];
  close(): Promise<void>;
}

/** A local server answering every request with `answer`. */
async function endpoint(answer: (res: import('node:http').ServerResponse) => void): Promise<Endpoint> {
  const hits: string[] = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      hits.push(body);
      answer(res);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/in`,
    hits,
    close: () =>
      new Promise((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

describe('postJson', function () {
  const open: Endpoint[] = [];
  const start = async (answer: (res: import('node:http').ServerResponse) => void) => {
    const e = await endpoint(answer);
    open.push(e);
    return e;
  };
  afterEach(async () => {
    await Promise.all(open.splice(0).map((e) => e.close()));
  });

  it('sends JSON with the given headers and reports a 2xx as delivered', async () => {
    const e = await start((res) => res.writeHead(204).end());
    const o = await postJson(e.url, '{"a":1}', {
      allowPrivate: true,
      headers: { 'webhook-id': 'm1' },
      userAgent: 'Spoor-Test',
    });
    expect(o).to.include({ ok: true, status: 204, error: null, permanent: false });
    expect(o.duration_ms).to.be.a('number');
    expect(e.hits).to.deep.equal(['{"a":1}']);
  });

  it('reports 500 as retryable, 410 as permanent, and reads Retry-After', async () => {
    const failing = await start((res) => res.writeHead(503, { 'retry-after': '7' }).end('busy'));
    expect(await postJson(failing.url, '{}', { allowPrivate: true })).to.include({
      ok: false,
      status: 503,
      error: 'HTTP 503',
      permanent: false,
      retry_after_ms: 7000,
      response_body: 'busy',
    });
    const gone = await start((res) => res.writeHead(410).end());
    expect(await postJson(gone.url, '{}', { allowPrivate: true })).to.include({
      ok: false,
      status: 410,
      permanent: true,
    });
  });

  it('does not follow a redirect: the target it names gets nothing', async () => {
    const target = await start((res) => res.writeHead(200).end());
    const redirecting = await start((res) => res.writeHead(302, { location: target.url }).end());
    const o = await postJson(redirecting.url, '{}', { allowPrivate: true });
    expect(o).to.include({ ok: false, status: 302 });
    expect(o.error).to.contain('redirect not followed');
    expect(target.hits).to.deep.equal([]);
  });

  it('gives up on a slow endpoint after the timeout', async () => {
    await start(() => {}); // never answers
    const slow = open[0]!;
    const o = await postJson(slow.url, '{}', { allowPrivate: true, timeoutMs: 300 });
    expect(o).to.include({ ok: false, status: null, error: 'timed out after 300 ms' });
    expect(o.duration_ms).to.be.lessThan(2000);
  });

  it('reads at most the cap of a huge answer', async () => {
    const huge = await start((res) => {
      res.writeHead(200);
      res.write('x'.repeat(200_000));
      res.end('y'.repeat(200_000));
    });
    const o = await postJson(huge.url, '{}', { allowPrivate: true, maxResponseBytes: 1024 });
    expect(o.ok).to.equal(true);
    expect(o.response_body).to.have.length(1024);
  });

  it('refuses a loopback target before connecting unless private targets are allowed', async () => {
    const e = await start((res) => res.writeHead(200).end());
    const o = await postJson(e.url, '{}', { allowPrivate: false });
    expect(o).to.include({ ok: false, permanent: true });
    expect(o.error).to.contain('not a public address');
    expect(e.hits).to.deep.equal([]);
  });

  it('checks the address at connection time: a name that resolves inward is refused', async () => {
    const e = await start((res) => res.writeHead(200).end());
    const port = new URL(e.url).port;
    const o = await postJson(`http://rebound.example:${port}/in`, '{}', {
      allowPrivate: false,
      lookup: async () => ['127.0.0.1'],
    });
    expect(o).to.include({ ok: false, permanent: true });
    expect(o.error).to.contain('not a public address').and.not.contain('127.0.0.1');
    expect(e.hits).to.deep.equal([]);
  });

  it('reports a refused connection as a retryable failure', async () => {
    const e = await start((res) => res.writeHead(200).end());
    const url = e.url;
    await e.close();
    open.pop();
    const o = await postJson(url, '{}', { allowPrivate: true });
    expect(o).to.include({ ok: false, status: null, permanent: false });
    expect(o.error).to.match(/ECONNREFUSED/);
  });

  it('parses Retry-After as seconds or an HTTP date', function () {
    const now = Date.parse('2026-11-22T12:00:00Z');
    expect(parseRetryAfter('120', now)).to.equal(120_000);
    expect(parseRetryAfter('Sun, 22 Nov 2026 12:01:00 GMT', now)).to.equal(60_000);
    expect(parseRetryAfter('soon', now)).to.equal(null);
    expect(parseRetryAfter(undefined, now)).to.equal(null);
  });
});
