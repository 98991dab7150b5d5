// GET /v1/live is served on the plain node:http path before express (issue 42, target 4), and
// `/v1/live/` (a trailing slash) still by express' router. Both doors must answer alike: every
// refusal (401, 404, 422, 429) with the catalogue's body and headers, HEAD, the stream's head,
// and the CORS headers a cross-origin caller gets from express' `cors` on every one of them;
// and the lane's answers are counted in /metrics under the route, as express' are.
import { expect } from 'chai';
import { request } from 'node:http';
import { requireEngine } from '@spoor/testkit';
import { ApiClient, signUp } from '../support/api-client.js';
import { startSpoor, waitFor, type Harness } from '../support/spoor-harness.js';

interface RawAnswer {
  status: number;
  /** Header lines as sent, in order, without the ones that vary by the moment (Date, Keep-Alive). */
  headers: string[];
  body: string;
}

const VARYING = /^(date|keep-alive)$/i;

/** One request over a fresh connection; a stream is read up to its first blank line, then dropped. */
function rawCall(base: string, method: string, path: string, headers: Record<string, string>): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const req = request(new URL(path, base), { method, headers, agent: false }, (res) => {
      const lines: string[] = [];
      for (let i = 0; i < res.rawHeaders.length; i += 2)
        if (!VARYING.test(res.rawHeaders[i]!)) lines.push(`${res.rawHeaders[i]}: ${res.rawHeaders[i + 1]}`);
      let body = '';
      const done = () => resolve({ status: res.statusCode ?? 0, headers: lines, body });
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        body += chunk;
        if (res.headers['content-type']?.startsWith('text/event-stream') && body.includes('\n\n')) {
          done();
          req.destroy();
        }
      });
      res.on('end', done);
      res.on('error', () => {});
    });
    req.on('error', reject);
    req.end();
  });
}

describe('Live stream: the fast lane answers as express does', function () {
  this.timeout(60_000);
  let spoor: Harness;
  let api: ApiClient;
  const scope = { origin: 'http://localhost:4830', project: 'live/doors' };
  const theirs = { origin: 'http://localhost:4831', project: 'live/theirs' };
  const query = (q: Record<string, string>) => `?${new URLSearchParams(q)}`;
  const cross = { origin: 'https://app.example' };

  before(async function () {
    const started = await startSpoor('embedded', { SPOOR_LIVE_STREAMS_PER_ACCOUNT: '2' });
    requireEngine(this, started ? 'ok' : null, 'the embedded engines');
    spoor = started!;
    api = await signUp(spoor.url);
    const other = await signUp(spoor.url);
    expect((await api.post('/v1/users/projects', scope)).status).to.equal(200);
    expect((await other.post('/v1/users/projects', theirs)).status).to.equal(200);
  });

  after(async () => spoor?.stop());

  /** The same request through both doors: the answers, and that they are the same. */
  const bothDoors = async (method: string, q: string, headers: Record<string, string>): Promise<RawAnswer> => {
    const lane = await rawCall(spoor.url, method, `/v1/live${q}`, headers);
    const express = await rawCall(spoor.url, method, `/v1/live/${q}`, headers);
    expect(lane, `${method} ${q} ${JSON.stringify(headers)}`).to.deep.equal(express);
    return lane;
  };
  const auth = () => ({ authorization: `Bearer ${api.token}` });

  it('answers every refusal, HEAD and the stream alike, with the CORS headers of a cross-origin call', async () => {
    const cases: Array<[string, string, Record<string, string>, number]> = [
      ['GET', query(scope), { ...cross }, 401],
      ['GET', query(scope), { authorization: 'Bearer not-a-token' }, 401],
      ['GET', query(theirs), { ...auth(), ...cross }, 404],
      ['GET', query({ origin: scope.origin }), { ...auth(), ...cross }, 422],
      ['GET', `${query(scope)}&project=again`, { ...auth() }, 422],
      ['HEAD', query(scope), { ...auth(), ...cross }, 200],
      ['HEAD', query(theirs), { ...auth() }, 404],
      ['GET', query(scope), { ...auth(), ...cross }, 200],
      ['GET', query(scope), { ...auth(), origin: '' }, 200],
    ];
    for (const [method, q, headers, status] of cases) {
      const answer = await bothDoors(method, q, headers);
      expect(answer.status, `${method} ${q}`).to.equal(status);
      if (headers.origin)
        expect(answer.headers).to.include.members([
          'Access-Control-Allow-Origin: https://app.example',
          'Vary: Origin',
          'Access-Control-Expose-Headers: WWW-Authenticate,Retry-After',
        ]);
    }
    const stream = await rawCall(spoor.url, 'GET', `/v1/live${query(scope)}`, { ...auth(), ...cross });
    expect(stream.headers).to.include.members([
      'Content-Type: text/event-stream; charset=utf-8',
      'Cache-Control: no-cache, no-transform',
      'X-Accel-Buffering: no',
    ]);
    expect(stream.body).to.equal('retry: 3000\n\n');
    const anonymous = await rawCall(spoor.url, 'GET', `/v1/live${query(scope)}`, {});
    expect(anonymous.headers).to.include('WWW-Authenticate: Bearer');
  });

  it('answers 429 alike past the cap, Retry-After and CORS headers included', async () => {
    // The streams of the test above are gone once the server heard their connections close.
    await waitFor(
      async () => (await api.get('/metrics')).text,
      (t) => /counter="live_streams"} 0\b/.test(t),
      5000,
      'no stream left open',
    );
    const hold = () =>
      new Promise<() => void>((resolve) => {
        const req = request(new URL(`/v1/live${query(scope)}`, spoor.url), { headers: auth(), agent: false }, () =>
          resolve(() => req.destroy()),
        );
        req.end();
      });
    const held = [await hold(), await hold()];
    try {
      const refused = await bothDoors('GET', query(scope), { ...auth(), ...cross });
      expect(refused.status).to.equal(429);
      expect(refused.headers).to.include.members([
        'Retry-After: 5',
        'Access-Control-Allow-Origin: https://app.example',
        'Content-Type: application/json; charset=utf-8',
      ]);
      expect(JSON.parse(refused.body)).to.deep.equal({
        detail:
          'Too many open live streams: this account has 2 open, the most an account may have on one server; close one to open another',
      });
    } finally {
      for (const close of held) close();
    }
  });

  it('counts its answers in /metrics under the route, as express does', async () => {
    const text = (await api.get('/metrics')).text;
    for (const status of ['401', '404', '422', '429'])
      expect(text).to.match(
        new RegExp(
          `spoor_http_request_duration_seconds_count\\{method="GET",route="/v1/live",status="${status}"\\} \\d`,
        ),
      );
  });
});
