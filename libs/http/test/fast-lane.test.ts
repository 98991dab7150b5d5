import { expect } from 'chai';
import { request as httpRequest } from 'node:http';
import { Router } from 'express';
import { z } from 'zod';
import { createLogger } from '@spoor/service-log';
import {
  createHttpApp,
  errors,
  FastLane,
  jsonBody,
  listen,
  parseOr422,
  type FastAnswer,
  type FastHandler,
  type FastStreamHandler,
  type RunningServer,
} from '../src/index.js';

/** One handler behind both doors: /fast through the lane, /slow (same handler) through express. */
const Thing = z.object({ name: z.string().max(3) });
const handler: FastHandler = async (body, req, ip) => {
  if (body === undefined) throw errors.validation([{ loc: ['body'], msg: 'Field required', type: 'missing' }]);
  if ((body as { name?: string }).name === 'boom') throw new Error('secret internals');
  return { ...parseOr422(Thing, body, 'body'), ip, ua: req.headers['user-agent'] ?? null };
};

interface Answer {
  status: number;
  body: string;
  headers: Record<string, string | string[] | undefined>;
}

/**
 * A stream route behind both doors: /stream through the lane, /stream-slow (same handler, express'
 * `req.query`) through express. It answers what its query asks for: a refusal from the catalogue,
 * a fault, HEAD's headers, or a stream's first line with the query it was given.
 */
const streamHandler: FastStreamHandler = async (req, res, query, headers) => {
  await new Promise((r) => setImmediate(r));
  const q = query as Record<string, unknown>;
  if (q['fail'] === 'auth') throw errors.unauthorized('Invalid token');
  if (q['fail'] === 'boom') throw new Error('secret internals');
  if (q['fail'] === 'late') {
    res.writeHead(200, { ...headers, 'Content-Type': 'text/event-stream; charset=utf-8' }).flushHeaders();
    throw new Error('after the head');
  }
  if (req.method === 'HEAD')
    return void res.writeHead(200, { ...headers, 'Content-Type': 'text/event-stream; charset=utf-8' }).end();
  res.writeHead(200, { ...headers, 'Content-Type': 'text/event-stream; charset=utf-8' });
  res.end(`data: ${JSON.stringify(query)}\n\n`);
};

/** A probe's answer, the same in memory behind both doors: /probe through the lane, /probe-slow through express. */
let probe: FastAnswer = { status: 200, body: { status: 'ok' } };

function send(
  url: string,
  headers: Record<string, string>,
  body: Buffer | string | null,
  method = 'POST',
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8'), headers: res.headers }),
      );
    });
    req.on('error', reject);
    req.end(body ?? undefined);
  });
}

describe('FastLane', () => {
  let server: RunningServer;
  before(async () => {
    const router = Router();
    router.post(
      '/slow',
      ...jsonBody(64, { textPlain: true }),
      async (req, res) => void res.json(await handler(req.body, req, req.ip ?? '')),
    );
    router.get(
      '/probe-slow',
      (_req, res) =>
        void res
          .status(probe.status)
          .set(probe.headers ?? {})
          .json(probe.body),
    );
    router.get('/probe', (_req, res) => void res.json({ via: 'express' }));
    router.get('/stream-slow', (req, res) => streamHandler(req, res, req.query, {}));
    const app = createHttpApp({
      logger: createLogger('t', 'silent'),
      trustProxy: ['loopback'],
      mount: (a) => a.use(router),
    });
    const lane = new FastLane(app, createLogger('t', 'silent'));
    lane.add('/fast', handler, 64);
    lane.addGet('/probe', () => probe);
    lane.addStream('/stream', streamHandler);
    server = await listen(app, 0, '127.0.0.1', lane);
  });
  after(() => server.close());

  const json = { 'content-type': 'application/json', origin: 'https://site.example', 'user-agent': 'UA/1' };
  const cases: Array<[string, Record<string, string>, string | null]> = [
    ['valid JSON', json, '{"name":"abc"}'],
    ['text/plain (sendBeacon)', { ...json, 'content-type': 'text/plain;charset=UTF-8' }, '{"name":"ab"}'],
    ['a BOM before the JSON', json, '\uFEFF{"name":"a"}'],
    ['a +json type', { ...json, 'content-type': 'application/vnd.x+json' }, '{"name":"a"}'],
    ['a 422', json, '{"name":"long"}'],
    ['an empty body', json, null],
    ['whitespace only', json, '   '],
    ['malformed JSON', json, '{"name":'],
    ['an unsupported type', { ...json, 'content-type': 'application/xml' }, '<a/>'],
    ['a body over the limit', json, JSON.stringify({ name: 'x'.repeat(100) })],
    ['a handler that throws', json, '{"name":"boom"}'],
    ['a forwarded client IP from a trusted proxy', { ...json, 'x-forwarded-for': '203.0.113.9' }, '{"name":"ip"}'],
  ];
  for (const [what, headers, body] of cases) {
    it(`answers ${what} exactly as the express path does`, async () => {
      const [fast, slow] = await Promise.all([
        send(`${server.url}/fast`, headers, body),
        send(`${server.url}/slow`, headers, body),
      ]);
      expect(fast.status).to.equal(slow.status);
      expect(fast.body).to.equal(slow.body);
      for (const h of [
        'content-type',
        'access-control-allow-origin',
        'access-control-allow-methods',
        'access-control-allow-headers',
        'access-control-expose-headers',
        'vary',
        'www-authenticate',
        'retry-after',
      ]) {
        expect(fast.headers[h], h).to.deep.equal(slow.headers[h]);
      }
    });
  }

  const probeCases: Array<[string, FastAnswer]> = [
    ['a 200', { status: 200, body: { status: 'ok', n: 1 } }],
    ['a 503 with Retry-After', { status: 503, headers: { 'Retry-After': '1' }, body: { status: 'starting' } }],
  ];
  for (const [what, answer] of probeCases) {
    it(`answers a GET probe's ${what} exactly as the express path does`, async () => {
      probe = answer;
      const headers = { origin: 'https://lb.example' };
      const [fast, slow] = await Promise.all([
        send(`${server.url}/probe?x=1`, headers, null, 'GET'),
        send(`${server.url}/probe-slow?x=1`, headers, null, 'GET'),
      ]);
      expect(fast.status).to.equal(answer.status);
      expect(fast.status).to.equal(slow.status);
      expect(fast.body).to.equal(slow.body);
      for (const h of ['content-type', 'content-length', 'retry-after', 'access-control-allow-origin', 'vary']) {
        expect(fast.headers[h], h).to.deep.equal(slow.headers[h]);
      }
    });
  }

  const streamCases: Array<[string, string, string]> = [
    ['a stream, its query parsed as express parses it', 'GET', '?a=1&a=2&b=%20x&c'],
    ['a stream without a query', 'GET', ''],
    ["HEAD's headers", 'HEAD', '?x=1'],
    ['a refusal from the catalogue', 'GET', '?fail=auth'],
    ['a refusal of a HEAD', 'HEAD', '?fail=auth'],
    ['a fault, as a 500 without internals', 'GET', '?fail=boom'],
  ];
  for (const [what, method, query] of streamCases) {
    it(`answers ${what} exactly as the express path does`, async () => {
      const headers = { origin: 'https://app.example' };
      const [fast, slow] = await Promise.all([
        send(`${server.url}/stream${query}`, headers, null, method),
        send(`${server.url}/stream-slow${query}`, headers, null, method),
      ]);
      expect([fast.status, fast.body]).to.deep.equal([slow.status, slow.body]);
      const { date: _d, ...fastHeaders } = fast.headers;
      const { date: _s, ...slowHeaders } = slow.headers;
      expect(fastHeaders).to.deep.equal(slowHeaders);
      expect(fast.headers['access-control-allow-origin']).to.equal('https://app.example');
    });
  }

  it('cuts a stream whose handler failed after its head was sent, and leaves a trailing slash to express', async () => {
    const complete = await new Promise<boolean>((resolve, reject) => {
      const req = httpRequest(`${server.url}/stream?fail=late`, (res) => {
        res.on('error', () => {});
        res.on('close', () => resolve(res.complete));
        res.resume();
      });
      req.on('error', reject);
      req.end();
    });
    expect(complete).to.equal(false);
    expect((await send(`${server.url}/stream/`, {}, null, 'GET')).status).to.equal(404);
  });

  it('leaves HEAD, a trailing slash and other methods of a GET probe to express', async () => {
    // The lane's answer is a 503, express' a 200: a HEAD the lane took would show its status.
    probe = { status: 503, headers: { 'Retry-After': '1' }, body: { via: 'lane' } };
    expect(JSON.parse((await send(`${server.url}/probe`, {}, null, 'GET')).body)).to.deep.equal({ via: 'lane' });
    expect(JSON.parse((await send(`${server.url}/probe/`, {}, null, 'GET')).body)).to.deep.equal({ via: 'express' });
    expect((await send(`${server.url}/probe`, {}, null, 'HEAD')).status).to.equal(200);
    expect((await send(`${server.url}/probe`, json, '{}', 'POST')).status).to.equal(405); // express' Allow: GET
  });

  it('takes the client IP from X-Forwarded-For only through a trusted proxy, and leaves other paths to express', async () => {
    const fast = await send(`${server.url}/fast`, { ...json, 'x-forwarded-for': '203.0.113.9' }, '{"name":"a"}');
    expect(JSON.parse(fast.body)).to.include({ ip: '203.0.113.9', ua: 'UA/1' });
    const other = await send(`${server.url}/fast/`, json, '{"name":"a"}');
    expect(other.status).to.equal(404); // express, which has no such route here
  });
});
