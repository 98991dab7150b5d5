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

function send(url: string, headers: Record<string, string>, body: Buffer | string | null): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: 'POST', headers }, (res) => {
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
    const app = createHttpApp({
      logger: createLogger('t', 'silent'),
      trustProxy: ['loopback'],
      mount: (a) => a.use(router),
    });
    const lane = new FastLane(app, createLogger('t', 'silent'));
    lane.add('/fast', handler, 64);
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

  it('takes the client IP from X-Forwarded-For only through a trusted proxy, and leaves other paths to express', async () => {
    const fast = await send(`${server.url}/fast`, { ...json, 'x-forwarded-for': '203.0.113.9' }, '{"name":"a"}');
    expect(JSON.parse(fast.body)).to.include({ ip: '203.0.113.9', ua: 'UA/1' });
    const other = await send(`${server.url}/fast/`, json, '{"name":"a"}');
    expect(other.status).to.equal(404); // express, which has no such route here
  });
});
