import { expect } from 'chai';
import { Router } from 'express';
import { z } from 'zod';
import { createLogger } from '@spoor/service-log';
import { createHttpApp, jsonBody, listen, parseOr422, type RunningServer } from '../src/index.js';

describe('createHttpApp', () => {
  let server: RunningServer;
  before(async () => {
    const router = Router();
    const Body = z.object({ name: z.string().max(3), tags: z.array(z.string()), n: z.number().int() });
    router.post('/v1/things', ...jsonBody(1024), (req, res) => {
      res.json(parseOr422(Body, req.body, 'body'));
    });
    router.get('/v1/things', (req, res) => {
      res.json(parseOr422(z.object({ origin: z.string() }), req.query, 'query'));
    });
    router.post('/v1/beacon', ...jsonBody(1024, { textPlain: true }), (req, res) => void res.json(req.body));
    router.delete('/v1/things/:id', (req, res) => void res.json({ id: req.params.id }));
    router.get('/v1/boom', () => {
      throw new Error('secret internals');
    });
    server = await listen(
      createHttpApp({ logger: createLogger('t', 'silent'), trustProxy: false, mount: (app) => app.use(router) }),
      0,
      '127.0.0.1',
    );
  });
  after(() => server.close());

  const call = async (path: string, init: RequestInit = {}) => {
    const res = await fetch(`${server.url}${path}`, init);
    const text = await res.text();
    return { res, text, body: text ? JSON.parse(text) : null };
  };

  it('answers FastAPI-shaped 422s with loc, msg and type', async () => {
    const { res, body } = await call('/v1/things', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'long', tags: 'x' }),
    });
    expect(res.status).to.equal(422);
    expect(body.detail).to.deep.include.members([
      { loc: ['body', 'name'], msg: 'String should have at most 3 characters', type: 'string_too_long', input: 'long' },
      { loc: ['body', 'tags'], msg: 'Input should be a valid list', type: 'list_type', input: 'x' },
      { loc: ['body', 'n'], msg: 'Field required', type: 'missing' },
    ]);
  });

  it('names the missing query parameter', async () => {
    const { res, body } = await call('/v1/things');
    expect(res.status).to.equal(422);
    expect(body.detail[0]).to.deep.equal({ loc: ['query', 'origin'], msg: 'Field required', type: 'missing' });
    expect(res.headers.get('access-control-allow-methods')).to.be.a('string');
  });

  it('treats a trailing slash as the same path', async () => {
    expect((await call('/v1/things/?origin=x')).body).to.deep.equal({ origin: 'x' });
  });

  it('answers 413, 400 and 415 in the error shape', async () => {
    const big = await call('/v1/things', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'x'.repeat(2000) }),
    });
    expect(big.res.status).to.equal(413);
    expect(big.body.detail).to.be.a('string');
    const bad = await call('/v1/things', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{nope',
    });
    expect(bad.res.status).to.equal(400);
    const type = await call('/v1/things', { method: 'POST', headers: { 'content-type': 'image/png' }, body: 'x' });
    expect(type.res.status).to.equal(415);
  });

  it('answers 415 to text/plain on a JSON endpoint, with a body or without; a beacon endpoint reads it as JSON', async () => {
    for (const body of ['{"name":"ab","tags":[],"n":1}', undefined]) {
      const plain = await call('/v1/things', {
        method: 'POST',
        headers: { 'content-type': 'text/plain;charset=UTF-8' },
        body,
      });
      expect(plain.res.status, `body ${body}`).to.equal(415);
      expect(plain.body).to.deep.equal({
        detail: 'Unsupported content type text/plain;charset=UTF-8; send application/json',
      });
    }
    const beacon = await call('/v1/beacon', {
      method: 'POST',
      headers: { 'content-type': 'text/plain;charset=UTF-8' },
      body: '{"a":1}',
    });
    expect(beacon.res.status).to.equal(200);
    expect(beacon.body).to.deep.equal({ a: 1 });
    const xml = await call('/v1/beacon', {
      method: 'POST',
      headers: { 'content-type': 'application/xml' },
      body: '<a/>',
    });
    expect(xml.body).to.deep.equal({
      detail: 'Unsupported content type application/xml; send application/json or text/plain',
    });
  });

  it('answers 405 with Allow for a method a path does not have (RFC 9110, 15.5.6), 404 for a path that does not exist', async () => {
    for (const [method, path, allow] of [
      ['PUT', '/v1/things', 'GET, HEAD, POST, OPTIONS'],
      ['DELETE', '/v1/things/', 'GET, HEAD, POST, OPTIONS'],
      ['PATCH', '/v1/things/7', 'DELETE, OPTIONS'],
      ['POST', '/v1/boom', 'GET, HEAD, OPTIONS'],
    ] as const) {
      const { res, body } = await call(path, { method });
      expect(res.status, `${method} ${path}`).to.equal(405);
      expect(res.headers.get('allow'), `${method} ${path}`).to.equal(allow);
      expect(body).to.deep.equal({ detail: 'Method Not Allowed' });
      expect(res.headers.get('access-control-allow-origin')).to.equal('*');
    }
    expect((await call('/v1/things/7/more', { method: 'PUT' })).res.status).to.equal(404);
  });

  it('hides internals in a 500 and answers JSON 404s', async () => {
    const boom = await call('/v1/boom');
    expect(boom.res.status).to.equal(500);
    expect(boom.body).to.deep.equal({ detail: 'Internal Server Error' });
    const missing = await call('/v1/nowhere');
    expect(missing.res.status).to.equal(404);
    expect(missing.body).to.deep.equal({ detail: 'Not Found' });
  });

  it('answers OPTIONS on any path with 200, no body and the three headers', async () => {
    const { res, text } = await call('/v1/whatever/path', { method: 'OPTIONS' });
    expect(res.status).to.equal(200);
    expect(text).to.equal('');
    expect(res.headers.get('access-control-allow-origin')).to.equal('*');
    expect(res.headers.get('access-control-allow-methods')).to.contain('GET');
    expect(res.headers.get('access-control-allow-headers')).to.contain('Authorization');
  });
});
