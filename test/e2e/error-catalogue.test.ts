import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { ERROR_CATALOGUE, ERROR_CODES, type ErrorCode } from '@spoor/schemas';
import { requireEngine } from '@spoor/testkit';
import { ApiClient, answerText, signUp } from '../support/api-client.js';
import { startSpoor, type Harness } from '../support/spoor-harness.js';

// Issue 20, item 2: every error the server answers comes from the one catalogue. Faults of every
// kind at every operation of /openapi.json, through both doors (ingest's fast lane and express):
// each error answer's status and detail must be those of a catalogued code, and a status the
// operation's document entry names (process-wide answers aside: no such path or method, a
// request node refuses before any route).

type Doc = {
  paths: Record<
    string,
    Record<
      string,
      {
        security?: unknown[];
        requestBody?: unknown;
        parameters?: Array<{ name: string; in: string }>;
        responses: Record<string, unknown>;
      }
    >
  >;
};

const PROCESS_WIDE = new Set<ErrorCode>([
  'route_not_found',
  'method_not_allowed',
  'headers_too_large',
  'malformed_request',
  'request_aborted',
]);

/** The catalogue's message as a pattern: each `%s` any text. */
const pattern = (message: string) =>
  new RegExp(
    `^${message
      .split('%s')
      .map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
      .join('[\\s\\S]*')}$`,
  );

/** The codes whose status and message could have made this answer. */
function codesOf(status: number, body: unknown): ErrorCode[] {
  const detail = (body as { detail?: unknown } | null)?.detail;
  return ERROR_CODES.filter((code) => {
    const e: { status: number; message: string | null } = ERROR_CATALOGUE[code];
    if (e.status !== status) return false;
    if (e.message === null)
      return (
        Array.isArray(detail) &&
        detail.every((d) => typeof d?.msg === 'string' && typeof d?.type === 'string' && Array.isArray(d?.loc))
      );
    return typeof detail === 'string' && pattern(e.message).test(detail);
  });
}

describe('Every error answered comes from the error catalogue (issue 20)', function () {
  this.timeout(120_000);
  let spoor: Harness;
  let api: ApiClient;
  let reader: ApiClient;
  let doc: Doc;
  const scope = { origin: 'https://unverified.example', project: 'errors/web' };
  const answers: Array<{ what: string; status: number; body: unknown; documented: string[] | null }> = [];

  before(async function () {
    const started = await startSpoor('embedded');
    requireEngine(this, started ? 'ok' : null, 'embedded mode');
    spoor = started!;
    api = await signUp(spoor.url);
    expect((await api.post('/v1/users/projects', scope)).status).to.equal(200);
    expect(
      (await api.post('/v1/users/projects', { origin: 'http://localhost:5173', project: 'errors/web' })).status,
    ).to.equal(200);
    const key = await api.post('/v1/users/apikey', {
      api_key_name: `reader-${randomUUID().slice(0, 8)}`,
      scope: 'read',
    });
    reader = api.withToken(key.body.api_key);
    doc = (await api.get('/openapi.json')).body as Doc;
  });
  after(async () => spoor?.stop());

  async function send(
    what: string,
    documented: string[] | null,
    method: string,
    path: string,
    init: {
      token?: string | null;
      headers?: Record<string, string>;
      body?: string;
      query?: Record<string, string>;
    } = {},
  ): Promise<void> {
    const url = new URL(path, spoor.url);
    for (const [k, v] of Object.entries(init.query ?? {})) url.searchParams.set(k, v);
    const headers: Record<string, string> = { ...init.headers };
    if (init.token) headers['authorization'] = `Bearer ${init.token}`;
    const res = await fetch(url, { method, headers, body: init.body });
    const text = await answerText(res);
    let body: unknown = text;
    try {
      body = text ? JSON.parse(text) : null;
    } catch {
      /* kept as text */
    }
    answers.push({ what, status: res.status, body, documented });
  }

  it('answers every fault at every operation with a catalogued, documented error', async () => {
    const big = JSON.stringify({ pad: 'x'.repeat(1_100_000) });
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(item)) {
        if (method === 'options') continue;
        const documented = Object.keys(op.responses);
        const M = method.toUpperCase();
        const concrete = path.replace(/\{(\w+)\}/g, 'sample');
        const what = (fault: string) => `${M} ${path}: ${fault}`;
        // Logging out revokes the token it carries: that operation gets a token of its own.
        const token = !op.security?.length
          ? null
          : path === '/v1/auth/logout'
            ? (await signUp(spoor.url)).token
            : api.token;
        const json = { 'content-type': 'application/json' };
        await send(what('no credential'), documented, M, concrete, { query: scope });
        await send(what('a forged credential'), documented, M, concrete, { token: 'spk_forged', query: scope });
        await send(what('no query'), documented, M, concrete, {
          token,
          ...(op.requestBody ? { headers: json, body: '{}' } : {}),
        });
        await send(what('an unverified project'), documented, M, concrete, {
          token,
          query: scope,
          ...(op.requestBody ? { headers: json, body: JSON.stringify(scope) } : {}),
        });
        // A new name each time: POST /v1/users/projects registers the one it is sent.
        const unknown = { origin: 'https://nope.example', project: `nope/${randomUUID().slice(0, 8)}` };
        await send(what('an unknown project'), documented, M, concrete, {
          token,
          query: unknown,
          ...(op.requestBody
            ? {
                headers: json,
                body: JSON.stringify({
                  ...unknown,
                  action: 'a',
                  timestamp: Date.now(),
                  events: [{ ...unknown, action: 'a', timestamp: Date.now() }],
                }),
              }
            : {}),
        });
        await send(what('a read-only key'), documented, M, concrete, {
          token: reader.token,
          query: scope,
          ...(op.requestBody ? { headers: json, body: JSON.stringify(scope) } : {}),
        });
        if (op.parameters?.some((p) => p.in === 'path'))
          await send(what('a path parameter that does not decode'), documented, M, path.replace(/\{(\w+)\}/g, '%ZZ'), {
            token,
            query: scope,
          });
        if (!op.requestBody) continue;
        await send(what('malformed JSON'), documented, M, concrete, { token, headers: json, body: '{"a":' });
        await send(what('XML'), documented, M, concrete, {
          token,
          headers: { 'content-type': 'application/xml' },
          body: '<a/>',
        });
        await send(what('an unknown charset'), documented, M, concrete, {
          token,
          headers: { 'content-type': 'application/json; charset=klingon' },
          body: '{}',
        });
        await send(what('a body over every limit'), documented, M, concrete, { token, headers: json, body: big });
        await send(what('JSON nested 100 deep'), documented, M, concrete, {
          token,
          headers: json,
          body: `${'['.repeat(100)}${']'.repeat(100)}`,
        });
        if (path.startsWith('/v1/event')) {
          await send(what('an event over 32 KiB'), documented, M, concrete, {
            headers: json,
            body: JSON.stringify({
              project: 'errors/web',
              origin: 'http://localhost:5173',
              action: 'a',
              timestamp: Date.now(),
              payload: { pad: 'x'.repeat(40_000) },
            }),
          });
          await send(what("another site's Origin"), documented, M, concrete, {
            headers: { ...json, origin: 'https://evil.example' },
            body: JSON.stringify({ project: 'errors/web', action: 'a', timestamp: Date.now() }),
          });
        }
      }
    }
    await send('no such path', null, 'GET', '/v1/nothing-here');
    await send('no such method', null, 'PUT', '/v1/sessions');
    await send('headers over 16 KB', null, 'GET', '/v1/sessions', { headers: { 'x-pad': 'x'.repeat(20_000) } });

    const errors = answers.filter((a) => a.status >= 400);
    expect(errors.length).to.be.greaterThan(400);
    const seen = new Set<ErrorCode>();
    const problems: string[] = [];
    for (const a of errors) {
      const codes = codesOf(a.status, a.body);
      const line = `${a.what} -> ${a.status} ${JSON.stringify(a.body).slice(0, 160)}`;
      if (a.status >= 500) problems.push(`server fault: ${line}`);
      if (codes.length === 0) problems.push(`not catalogued: ${line}`);
      codes.forEach((c) => seen.add(c));
      const processWide = codes.some((c) => PROCESS_WIDE.has(c));
      if (a.documented && !processWide && !a.documented.includes(String(a.status)))
        problems.push(`not documented: ${line}`);
    }
    expect(problems).to.deep.equal([]);
    // The faults above reach most of the catalogue; the rest (429, 503, conflicts) have their own tests.
    for (const code of [
      'malformed_json',
      'malformed_path',
      'unauthorized',
      'domain_unverified',
      'read_only_key',
      'operators_only',
      'origin_mismatch',
      'not_found',
      'unknown_project',
      'route_not_found',
      'method_not_allowed',
      'body_too_large',
      'event_too_large',
      'unsupported_media_type',
      'unsupported_encoding',
      'validation_error',
      'headers_too_large',
    ] as ErrorCode[]) {
      expect([...seen], code).to.include(code);
    }
  });
});
