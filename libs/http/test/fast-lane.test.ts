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
    const app = createHttpApp({
      logger: createLogger('t', 'silent'),
      trustProxy: ['loopback'],
      mount: (a) => a.use(router),
    });
    const lane = new FastLane(app, createLogger('t', 'silent'));
    lane.add('/fast', handler, 64);
    lane.addGet('/probe', () => probe);
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
