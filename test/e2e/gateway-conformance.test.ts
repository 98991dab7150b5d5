import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { Validator } from '@seriousme/openapi-schema-validator';
import { requireEngine } from '@spoor/testkit';
import { ApiClient, signUp } from '../support/api-client.js';
import { startSpoor, type Harness } from '../support/spoor-harness.js';

interface Operation {
  security?: Array<Record<string, string[]>>;
  parameters?: Array<{ name: string; in: string; required?: boolean }>;
  requestBody?: unknown;
  responses?: Record<string, unknown>;
}
type Doc = {
  info: { version: string };
  paths: Record<string, Record<string, Operation>>;
  components: { securitySchemes: Record<string, unknown> };
};

const CORS = ['access-control-allow-origin', 'access-control-allow-methods', 'access-control-allow-headers'];
const concrete = (path: string) => path.replace(/\{(\w+)\}/g, (_m, name: string) => `sample-${name}`);

describe('Gateway conformance, driven by its own OpenAPI document', function () {
  this.timeout(120_000);
  let spoor: Harness;
  let api: ApiClient;
  let doc: Doc;
  const scope = { origin: 'http://127.0.0.1:9999', project: 'conf/web' };
  const operations = () =>
    Object.entries(doc.paths).flatMap(([path, item]) =>
      Object.entries(item)
        .filter(([m]) => m !== 'options')
        .map(([method, op]) => ({ path, method: method.toUpperCase(), op })),
    );

  before(async function () {
    const started = await startSpoor('embedded');
    requireEngine(this, started ? 'ok' : null, 'embedded mode');
    spoor = started!;
    api = await signUp(spoor.url);
    expect((await api.post('/v1/users/projects', scope)).status).to.equal(200);
    doc = (await api.get('/openapi.json')).body as Doc;
  });
  after(async () => spoor?.stop());

  it('serves a valid OpenAPI 3.1 document at /openapi.json and /v1/openapi.json', async () => {
    const validator = new Validator();
    const result = await validator.validate(doc as unknown as Parameters<Validator['validate']>[0]);
    expect(result.valid, JSON.stringify(result.errors)).to.equal(true);
    expect((await api.get('/v1/openapi.json')).body).to.deep.equal(doc);
    expect(doc.info.version).to.match(/^v?[\w.]+-\d+-g([0-9a-f]+|unknown)$/);
    expect(doc.components.securitySchemes).to.have.property('bearerAuth');
    expect(Object.keys(doc.paths)).to.include.members([
      '/v1/sessions',
      '/v1/sessions/{session_id}',
      '/v1/events',
      '/v1/event',
      '/v1/events/actions',
      '/v1/tags/{tag}',
      '/v1/users/apikey/{api_key_name}',
      '/v1/event/batch',
    ]);
  });

  it("secures every operation but POST /event, OPTIONS, the sign-in doors and the recipients' confirmation link", () => {
    // The confirmation link is opened from a mail, without credentials: its token is the proof (issue 13).
    // So are share links (issue 45): the link's token opens its aggregates, a password's grant aside.
    const open = new Set([
      'POST /v1/event',
      'POST /v1/event/batch',
      'POST /v1/auth/signup',
      'POST /v1/auth/login',
      'GET /.well-known/jwks.json',
      'GET /.well-known/openid-configuration',
      'GET /v1/recipients/confirm',
      'GET /v1/shared/{token}',
      'POST /v1/shared/{token}/unlock',
      'POST /v1/shared/{token}/stats',
    ]);
    for (const { path, method, op } of operations()) {
      const key = `${method} ${path}`;
      if (open.has(key)) expect(op.security, key).to.deep.equal([]);
      else expect(op.security, key).to.deep.equal([{ bearerAuth: [] }]);
    }
    for (const item of Object.values(doc.paths)) expect(item['options']!.security).to.deep.equal([]);
  });

  it('answers OPTIONS on every path with 200, an empty body and the CORS headers', async () => {
    for (const path of Object.keys(doc.paths)) {
      const res = await new ApiClient(spoor.url).call('OPTIONS', concrete(path));
      expect(res.status, path).to.equal(200);
      expect(res.text, path).to.equal('');
      for (const h of CORS) expect(res.headers.get(h), `${path} ${h}`).to.be.a('string');
    }
  });

  it('answers 401 with WWW-Authenticate to a missing or bad credential on every secured operation', async () => {
    for (const { path, method, op } of operations()) {
      if (!op.security?.length) continue;
      for (const token of [null, 'not-a-token', 'eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0.', 'spk_forged']) {
        const res = await new ApiClient(spoor.url, token).call(
          method,
          concrete(path),
          scope,
          op.requestBody ? {} : undefined,
        );
        expect(res.status, `${method} ${path} with ${token}`).to.equal(401);
        expect(res.headers.get('www-authenticate')).to.equal('Bearer');
        expect(res.body.detail).to.be.a('string');
      }
    }
  });

  it('answers 422 naming each missing required query parameter, with the CORS headers', async () => {
    for (const { path, method, op } of operations()) {
      const required = (op.parameters ?? []).filter((p) => p.in === 'query' && p.required);
      for (const param of required) {
        const query = { ...scope, [param.name]: undefined };
        const res = await api.call(method, concrete(path), query, op.requestBody ? {} : undefined);
        expect(res.status, `${method} ${path} without ${param.name}`).to.equal(422);
        expect(res.body.detail.map((d: { loc: string[] }) => d.loc)).to.deep.include(['query', param.name]);
        for (const h of CORS) expect(res.headers.get(h)).to.be.a('string');
      }
    }
  });

  it('answers 422 naming each missing field of a required body', async () => {
    for (const { path, method, op } of operations()) {
      if (!op.requestBody || path.startsWith('/v1/event')) continue;
      const res = await api.call(method, concrete(path), {}, {});
      expect(res.status, `${method} ${path}`).to.equal(422);
      // Query failures come first where an operation also takes a query (PATCH /v1/projects).
      expect(
        res.body.detail.map((d: { loc: string[] }) => d.loc[0]),
        `${method} ${path}`,
      ).to.include('body');
    }
  });

  it('checks limit: 0, 1000, 1001 and abc', async () => {
    expect((await api.get('/v1/sessions', { ...scope, limit: 0 })).status).to.equal(422);
    expect((await api.get('/v1/sessions', { ...scope, limit: 1000 })).status).to.equal(200);
    const over = await api.get('/v1/sessions', { ...scope, limit: 1001 });
    expect(over.status).to.equal(422);
    expect(over.body.detail[0]).to.deep.include({ loc: ['query', 'limit'], type: 'less_than_equal' });
    expect((await api.get('/v1/sessions', { ...scope, limit: 'abc' })).status).to.equal(422);
  });

  it('treats every GET path with and without a trailing slash alike, aliases included', async () => {
    for (const { path, method } of operations()) {
      if (method !== 'GET' || path.startsWith('/.well-known')) continue;
      const a = await api.get(concrete(path), scope);
      const b = await api.get(`${concrete(path)}/`, scope);
      expect([a.status, b.status], path).to.deep.equal([a.status, a.status]);
      // Live figures (health) change between two calls: their shape must match, not their values.
      if (path === '/v1/status/health') expect(Object.keys(b.body), path).to.deep.equal(Object.keys(a.body));
      else expect(b.body, path).to.deep.equal(a.body);
      if (a.status === 200) for (const h of CORS) expect(a.headers.get(h)).to.be.a('string');
    }
  });

  it('answers 404, never 403 or 500, for a project of nobody', async () => {
    const nobody = { origin: 'https://nobody.example', project: `p-${randomUUID()}` };
    for (const { path, method, op } of operations()) {
      if (!(op.parameters ?? []).some((p) => p.name === 'project')) continue;
      const res = await api.call(method, concrete(path), nobody);
      expect(res.status, `${method} ${path}`).to.equal(404);
    }
  });

  it('answers 405 with Allow, not 404, for a method a documented path does not have (issue 20)', async () => {
    // What the document says a concrete path answers: `/v1/rules/test` is also `/v1/rules/{rule_id}`.
    const templates = Object.entries(doc.paths).map(([path, item]) => ({
      pattern: new RegExp(`^${path.replace(/\{\w+\}/g, '[^/]+')}$`),
      methods: Object.keys(item).map((m) => m.toUpperCase()),
    }));
    const ORDER = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];
    for (const path of Object.keys(doc.paths)) {
      const url = concrete(path);
      const documented = new Set(templates.filter((t) => t.pattern.test(url)).flatMap((t) => t.methods));
      if (documented.has('GET')) documented.add('HEAD');
      const allow = ORDER.filter((m) => documented.has(m)).join(', ');
      for (const method of ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'].filter((m) => !documented.has(m))) {
        const res = await api.call(method, url, scope);
        expect(res.status, `${method} ${path}`).to.equal(405);
        expect(res.headers.get('allow'), `${method} ${path}`).to.equal(allow);
        expect(res.body, `${method} ${path}`).to.deep.equal({ detail: 'Method Not Allowed' });
      }
    }
    expect((await api.call('PUT', '/v1/no-such-path')).status).to.equal(404);
  });

  it('answers 415 in the documented shape to text/plain on every JSON body but the two ingest operations (issue 20)', async () => {
    for (const { path, method, op } of operations()) {
      if (!op.requestBody) continue;
      const res = await fetch(new URL(concrete(path), spoor.url), {
        method,
        headers: { authorization: `Bearer ${api.token}`, 'content-type': 'text/plain;charset=UTF-8' },
        body: JSON.stringify(scope),
      });
      const body = (await res.json()) as { detail: unknown };
      if (path.startsWith('/v1/event')) {
        // sendBeacon and the logger post text/plain JSON: read as JSON (here a 422 for the missing fields).
        expect(res.status, `${method} ${path}`).to.equal(422);
        continue;
      }
      expect(res.status, `${method} ${path}`).to.equal(415);
      expect(body, `${method} ${path}`).to.deep.equal({
        detail: 'Unsupported content type text/plain;charset=UTF-8; send application/json',
      });
      expect(op.responses, `${method} ${path} documents 415`).to.have.property('415');
    }
  });

  it('registers only identifiers that are slash-separated paths (422 otherwise, issue 20)', async () => {
    const origin = 'http://127.0.0.1:9998';
    for (const project of ['x y', '/web', 'web/', 'a//b', 'a\\b', 'a/b?c', 'tab\tname', '..', 'a/../b']) {
      const res = await api.post('/v1/users/projects', { origin, project });
      expect(res.status, JSON.stringify(project)).to.equal(422);
      expect(res.body.detail[0].loc, project).to.deep.equal(['body', 'project']);
    }
    for (const project of ['web', 'acme/web', 'a.b/c-d/e_f', 'Acme/Web2']) {
      expect((await api.post('/v1/users/projects', { origin, project })).status, project).to.equal(200);
    }
  });

  it('answers 422 to GET /v1/tags/{tag} with a window that ends before it starts, as the triggers do (issue 20)', async () => {
    const backwards = { ...scope, window_start: 2000, window_end: 1000 };
    const tags = await api.get('/v1/tags/vip', backwards);
    expect(tags.status).to.equal(422);
    expect(tags.body.detail[0]).to.include({ msg: 'window_end must be after window_start' });
    expect(tags.body.detail[0].loc).to.deep.equal(['query', 'window_end']);
    expect((await api.post('/v1/trigger/aggregation', backwards)).status).to.equal(422);
    expect((await api.get('/v1/tags/vip', { ...scope, window_start: 1000, window_end: 2000 })).status).to.equal(200);
  });

  it('refuses raw and enriched events of an unverified domain with 403 until verified', async () => {
    const remote = { origin: 'https://unverified.example', project: 'conf/remote' };
    expect((await api.post('/v1/users/projects', remote)).body.verified).to.equal(false);
    expect((await api.get('/v1/events', remote)).status).to.equal(403);
    expect((await api.get('/v1/events/enriched', remote)).status).to.equal(403);
    expect((await api.get('/v1/events/actions', remote)).status).to.equal(200);
  });
});
