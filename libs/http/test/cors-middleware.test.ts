import { expect } from 'chai';
import cors from 'cors';
import type { RequestHandler } from 'express';
import { createServer, request, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ALLOWED_HEADERS, ALLOWED_METHODS, CORS_OPTIONS, corsHeaders, corsMiddleware } from '../src/cors-middleware.js';

/** What every response carried before the direct path: the defaults, then `cors` for everything. */
const reference: RequestHandler[] = [
  (_req, res, next) => {
    res.setHeader('Access-Control-Allow-Methods', ALLOWED_METHODS);
    res.setHeader('Access-Control-Allow-Headers', ALLOWED_HEADERS);
    next();
  },
  cors(CORS_OPTIONS),
];

/** A server answering through `steps` (raw node objects, as the ingest fast lane calls them); `/varied` varies first. */
function serve(steps: RequestHandler[]): Promise<Server> {
  const server = createServer((req, res) => {
    if (req.url === '/varied') res.setHeader('Vary', 'Accept-Encoding');
    let i = 0;
    const next = (): void => {
      const step = steps[i++];
      if (step) step(req as never, res as never, next);
      else if (!res.writableEnded) res.end('ok');
    };
    next();
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

function ask(server: Server, method: string, path: string, headers: Record<string, string>) {
  const { port } = server.address() as AddressInfo;
  return new Promise<{ status: number; headers: IncomingHttpHeaders; body: string }>((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method, path, headers }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

const CORS_HEADERS = [
  'access-control-allow-origin',
  'access-control-allow-methods',
  'access-control-allow-headers',
  'access-control-expose-headers',
  'access-control-max-age',
  'vary',
  'content-length',
];

describe('corsMiddleware', () => {
  let direct: Server;
  let library: Server;
  before(async () => {
    [direct, library] = await Promise.all([serve(corsMiddleware()), serve(reference)]);
  });
  after(() => {
    direct.close();
    library.close();
  });

  const origins: Array<[string, Record<string, string>]> = [
    ['no Origin', {}],
    ['a site', { origin: 'https://shop.example' }],
    ['Origin: *', { origin: '*' }],
    ['Origin: null (a sandboxed page)', { origin: 'null' }],
    ['an empty Origin', { origin: '' }],
  ];
  const preflight = {
    'access-control-request-method': 'POST',
    'access-control-request-headers': 'content-type, x-extra',
  };
  for (const [what, headers] of origins) {
    for (const [method, path, extra] of [
      ['GET', '/', {}],
      ['POST', '/', {}],
      ['DELETE', '/', {}],
      ['GET', '/varied', {}],
      ['OPTIONS', '/', preflight],
    ] as const) {
      it(`answers ${method} ${path} with ${what} exactly as cors does`, async () => {
        const [a, b] = await Promise.all([
          ask(direct, method, path, { ...headers, ...extra }),
          ask(library, method, path, { ...headers, ...extra }),
        ]);
        expect(a.status).to.equal(b.status);
        expect(a.body).to.equal(b.body);
        for (const h of CORS_HEADERS) expect(a.headers[h], h).to.deep.equal(b.headers[h]);
      });
    }
  }

  for (const [what, headers] of origins) {
    it(`lists for ${what} the headers corsMiddleware sets (corsHeaders, for writeHead)`, async () => {
      const set = await ask(direct, 'GET', '/', headers);
      const listed = await new Promise<IncomingHttpHeaders>((resolve) => {
        const server = createServer((req, res) => res.writeHead(200, corsHeaders(req.headers.origin)).end('ok'));
        server.listen(0, '127.0.0.1', async () => {
          resolve((await ask(server, 'GET', '/', headers)).headers);
          server.close();
        });
      });
      for (const h of CORS_HEADERS.filter((name) => name !== 'content-length'))
        expect(listed[h], h).to.deep.equal(set.headers[h]);
    });
  }

  it('reflects a site and lets it read the retry headers', async () => {
    const res = await ask(direct, 'POST', '/', { origin: 'https://shop.example' });
    expect(res.headers['access-control-allow-origin']).to.equal('https://shop.example');
    expect(res.headers['vary']).to.equal('Origin');
    expect(res.headers['access-control-expose-headers']).to.equal('WWW-Authenticate,Retry-After');
    const varied = await ask(direct, 'GET', '/varied', { origin: 'https://shop.example' });
    expect(varied.headers['vary']).to.equal('Accept-Encoding, Origin');
  });
});
