// Credentials hardening through HTTP (issue 13): a token must name an account, logout revokes
// the token it was called with (in the store: across restarts), API key scopes are enforced
// on every operation of the OpenAPI document, and system-wide health is for operators only.
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { SignJWT, importJWK } from 'jose';
import { makeTempDir, requireEngine } from '@spoor/testkit';
import { ApiClient, signUp, type ApiResponse } from '../support/api-client.js';
import { MODES, type Mode } from '../support/engine-env.js';
import { startSpoor, type Harness } from '../support/spoor-harness.js';

type Doc = { paths: Record<string, Record<string, { security?: unknown[] }>> };
const concrete = (path: string) => path.replace(/\{(\w+)\}/g, (_m, name: string) => `sample-${name}`);

function expect401(res: ApiResponse, what: string): void {
  expect(res.status, `${what}: ${res.text}`).to.equal(401);
  expect(res.headers.get('www-authenticate'), what).to.equal('Bearer');
  expect(res.body.detail, what).to.be.a('string');
}

function expect403(res: ApiResponse, what: string, mentions: RegExp): void {
  expect(res.status, `${what}: ${res.text}`).to.equal(403);
  expect(res.body.detail, what).to.be.a('string').and.match(mentions);
}

/** Environment that a second start reuses: the same data, database, topics and issuer URL. */
async function stableEnv(mode: Mode, opsEmail: string): Promise<Record<string, string>> {
  const run = randomUUID().replace(/-/g, '').slice(0, 10);
  return {
    SPOOR_DATA_DIR: await makeTempDir('spoor-auth'),
    SPOOR_PUBLIC_URL: 'https://spoor.auth.test',
    SPOOR_ADMIN_EMAILS: `${opsEmail}, someone-else@example.org`,
    ...(mode === 'kafka' ? { SPOOR_CLICKHOUSE_DATABASE: `spoor_auth_${run}`, SPOOR_TOPIC_PREFIX: `auth${run}.` } : {}),
  };
}

/** POSTs that only read (a funnel's steps are too rich for a query string): a read-only key may call them. */
const READING_POSTS = new Set(['/v1/funnels/query', '/v1/stats/query']);

for (const mode of MODES) {
  describe(`Auth hardening: accounts, logout, API key scopes, operators: ${mode}`, function () {
    this.timeout(120_000);
    let spoor: Harness | undefined;
    let env: Record<string, string>;
    let user: ApiClient;
    let ops: ApiClient;
    const opsEmail = `ops-${randomUUID().slice(0, 8)}@example.com`;
    const scope = { origin: 'http://localhost:4310', project: 'auth/web' };

    before(async function () {
      env = await stableEnv(mode, opsEmail.toUpperCase());
      spoor = (await startSpoor(mode, env)) ?? undefined;
      requireEngine(this, spoor ? 'ok' : null, `engines for ${mode} mode`);
      user = await signUp(spoor!.url);
      ops = await signUp(spoor!.url, opsEmail);
      expect((await user.post('/v1/users/projects', scope)).status).to.equal(200);
    });
    after(async () => spoor?.stop());

    const apiKey = async (owner: ApiClient, keyScope?: string): Promise<ApiClient> => {
      const res = await owner.post('/v1/users/apikey', {
        api_key_name: `k-${randomUUID().slice(0, 8)}`,
        ...(keyScope ? { scope: keyScope } : {}),
      });
      expect(res.status, res.text).to.equal(200);
      return owner.withToken(res.body.api_key as string);
    };

    it('refuses a token signed by the built-in key whose sub names no account: 401, WWW-Authenticate: Bearer', async () => {
      const [key] = await spoor!.store.signingKeys.list();
      const now = Math.floor(Date.now() / 1000);
      const forged = await new SignJWT({ email: 'ghost@example.com' })
        .setProtectedHeader({ alg: 'ES256', kid: key!.kid, typ: 'JWT' })
        .setIssuer(env.SPOOR_PUBLIC_URL!)
        .setAudience('spoor')
        .setSubject(randomUUID())
        .setJti(randomUUID())
        .setIssuedAt(now)
        .setNotBefore(now)
        .setExpirationTime(now + 600)
        .sign(await importJWK(JSON.parse(key!.private_jwk), 'ES256'));
      const ghost = user.withToken(forged);
      expect401(await ghost.get('/v1/users/account'), 'GET account');
      expect401(await ghost.get('/v1/users/projects'), 'GET projects');
      expect401(
        await ghost.post('/v1/users/projects', { origin: 'https://ghost.example', project: 'ghost/web' }),
        'POST project',
      );
      // The same key and claims for a real account pass: the signature was never the problem.
      const real = await signUp(spoor!.url);
      const { account_id } = (await real.get('/v1/users/account')).body;
      const genuine = await new SignJWT({})
        .setProtectedHeader({ alg: 'ES256', kid: key!.kid })
        .setIssuer(env.SPOOR_PUBLIC_URL!)
        .setAudience('spoor')
        .setSubject(account_id)
        .setIssuedAt(now)
        .setExpirationTime(now + 600)
        .sign(await importJWK(JSON.parse(key!.private_jwk), 'ES256'));
      expect((await user.withToken(genuine).get('/v1/users/account')).body.account_id).to.equal(account_id);
    });

    it('logout revokes the token it was called with, and only that one', async () => {
      const email = `out-${randomUUID().slice(0, 8)}@example.com`;
      const first = await signUp(spoor!.url, email);
      const login = await new ApiClient(spoor!.url).post('/v1/auth/login', {
        email,
        password: 'correct horse battery',
      });
      const second = first.withToken(login.body.id_token as string);
      expect((await first.get('/v1/users/account')).status).to.equal(200);

      const out = await first.call('POST', '/v1/auth/logout');
      expect(out.status, out.text).to.equal(200);
      expect(out.body.revoked).to.equal(true);
      expect(out.body.expires_at).to.be.greaterThan(Date.now());
      expect401(await first.get('/v1/users/account'), 'the revoked token');
      expect401(await first.call('POST', '/v1/auth/logout'), 'logout again with it');
      expect((await second.get('/v1/users/account')).status).to.equal(200);
    });

    // Kafka mode only: in embedded mode one process holds the store.
    if (mode === 'kafka')
      it('another gateway on the same store refuses a logged-out token and a deleted key at once, though it caches both (the credential mark in Redis)', async function () {
        // A minute of memory: only the mark, moved by the first process' writes, can explain a refusal.
        const other = await startSpoor(mode, { ...env, SPOOR_SERVICES: 'gateway', SPOOR_GATEWAY_CACHE_MS: '60000' });
        try {
          const here = await signUp(spoor!.url, `mark-${randomUUID().slice(0, 8)}@example.com`);
          const name = `k-${randomUUID().slice(0, 8)}`;
          const made = await here.post('/v1/users/apikey', { api_key_name: name });
          expect(made.status, made.text).to.equal(200);
          const tokenThere = new ApiClient(other!.url, here.token);
          const keyThere = new ApiClient(other!.url, made.body.api_key as string);
          for (let i = 0; i < 2; i++) {
            expect((await tokenThere.get('/v1/users/account')).status, 'token, before').to.equal(200);
            expect((await keyThere.get('/v1/users/account')).status, 'key, before').to.equal(200);
          }
          expect((await here.delete(`/v1/users/apikey/${name}`)).status).to.equal(200);
          expect401(await keyThere.get('/v1/users/account'), 'the deleted key, at the other gateway');
          expect((await tokenThere.get('/v1/users/account')).status, 'token, after the key').to.equal(200);
          expect((await here.call('POST', '/v1/auth/logout')).status).to.equal(200);
          expect401(await tokenThere.get('/v1/users/account'), 'the logged-out token, at the other gateway');
        } finally {
          await other?.stop();
        }
      });

    it('logout answers 401 without a token, 400 with an API key (which it leaves working)', async () => {
      expect401(await new ApiClient(spoor!.url).call('POST', '/v1/auth/logout'), 'no token');
      expect401(await user.withToken('not-a-token').call('POST', '/v1/auth/logout'), 'garbage');
      const key = await apiKey(user, 'read');
      const res = await key.call('POST', '/v1/auth/logout');
      expect(res.status, res.text).to.equal(400);
      expect(res.body.detail).to.match(/DELETE \/v1\/users\/apikey/);
      expect((await key.get('/v1/users/account')).status).to.equal(200);
    });

    it('lists each key with its scope; full is the default; a bad scope is 422', async () => {
      const owner = await signUp(spoor!.url);
      expect((await owner.post('/v1/users/apikey', { api_key_name: 'plain' })).body.scope).to.equal('full');
      expect((await owner.post('/v1/users/apikey', { api_key_name: 'reader', scope: 'read' })).body.scope).to.equal(
        'read',
      );
      const listed = await owner.get('/v1/users/apikey');
      expect(listed.body.api_keys.map((k: any) => [k.api_key_name, k.scope])).to.deep.equal([
        ['plain', 'full'],
        ['reader', 'read'],
      ]);
      const bad = await owner.post('/v1/users/apikey', { api_key_name: 'bad', scope: 'admin' });
      expect(bad.status).to.equal(422);
      expect(bad.body.detail[0].loc).to.deep.equal(['body', 'scope']);
    });

    it('a read-only key reads, and answers 403 naming its scope for every other operation in /openapi.json', async () => {
      const reader = await apiKey(user, 'read');
      expect((await reader.get('/v1/users/projects')).body.projects).to.have.length(1);
      expect((await reader.get('/v1/sessions', scope)).status).to.equal(200);
      const doc = (await reader.get('/openapi.json')).body as Doc;
      const writes = Object.entries(doc.paths).flatMap(([path, item]) =>
        Object.entries(item)
          .filter(
            ([method, op]) =>
              !['get', 'options'].includes(method) && (op.security ?? []).length > 0 && !READING_POSTS.has(path),
          )
          .map(([method]) => ({ method: method.toUpperCase(), path })),
      );
      expect(writes.length).to.be.greaterThan(20);
      for (const { method, path } of writes) {
        const res = await reader.call(
          method,
          concrete(path),
          {},
          { ...scope, api_key_name: 'x', tag: 'x', rule_id: 'x' },
        );
        if (path === '/v1/auth/logout') expect(res.status, path).to.equal(400);
        else expect403(res, `${method} ${path}`, /scope "read"/);
      }
      const funnel = await reader.call(
        'POST',
        '/v1/funnels/query',
        {},
        { ...scope, steps: [{ action: 'pageview' }, { action: 'signup' }] },
      );
      expect(funnel.status, `a read-only key runs a funnel query: ${funnel.text}`).to.equal(200);
      expect((await reader.get('/v1/users/apikey')).body.api_keys.map((k: any) => k.scope)).to.not.include('operator');
      expect((await user.post('/v1/users/apikey', { api_key_name: 'still-fine' })).status).to.equal(200);
    });

    it('documents 403 on every operation a read-only key or a non-operator is refused', async () => {
      const doc = (await user.get('/openapi.json')).body as {
        paths: Record<string, Record<string, { security?: unknown[]; responses: Record<string, unknown> }>>;
      };
      for (const [path, item] of Object.entries(doc.paths)) {
        for (const [method, op] of Object.entries(item)) {
          if (method === 'options' || (op.security ?? []).length === 0) continue;
          const refusable =
            (method !== 'get' && path !== '/v1/auth/logout' && !READING_POSTS.has(path)) ||
            path.startsWith('/v1/status/health');
          if (refusable) expect(op.responses, `${method} ${path}`).to.have.property('403');
        }
      }
    });

    it("health and its history: 403 to other accounts and keys, 200 to an operator's token and operator key", async () => {
      const paths = ['/v1/status/health', '/v1/status/health/history'];
      const opsFullKey = await apiKey(ops);
      for (const path of paths) {
        expect403(await user.get(path), `user ${path}`, /SPOOR_ADMIN_EMAILS/);
        expect403(await (await apiKey(user)).get(path), `user key ${path}`, /Operators only/);
        expect403(await opsFullKey.get(path), `operator's full key ${path}`, /Operators only/);
        expect((await ops.get(path)).status, `operator token ${path}`).to.equal(200);
      }
      expect403(
        await user.post('/v1/users/apikey', { api_key_name: 'sneaky', scope: 'operator' }),
        'non-operator makes an operator key',
        /operator/,
      );
      expect403(
        await opsFullKey.post('/v1/users/apikey', { api_key_name: 'sneaky', scope: 'operator' }),
        "operator's full key makes one",
        /operator/,
      );
      const opsKey = await apiKey(ops, 'operator');
      for (const path of paths) expect((await opsKey.get(path)).status, `operator key ${path}`).to.equal(200);
      expect(
        (await opsKey.post('/v1/users/apikey', { api_key_name: 'from-op-key', scope: 'operator' })).status,
      ).to.equal(200);
      expect((await ops.get('/v1/users/apikey')).body.api_keys.map((k: any) => k.scope)).to.include('operator');
    });

    it('/healthz stays open and shows only process figures, nothing of any tenant', async () => {
      const res = await fetch(`${spoor!.url}/healthz`);
      expect(res.status).to.equal(200);
      const text = await res.text();
      expect(Object.keys(JSON.parse(text)).sort()).to.deep.equal([
        'bus',
        'counters',
        'kv',
        'lag',
        'lag_sampled_at',
        'status',
        'store',
        'uptime_ms',
      ]);
      for (const secret of [scope.project, scope.origin, opsEmail, 'localhost:4310'])
        expect(text).to.not.contain(secret);
    });

    it('a logged-out token stays refused after a restart on the same store; operators stay operators', async () => {
      const email = `restart-${randomUUID().slice(0, 8)}@example.com`;
      const client = await signUp(spoor!.url, email);
      expect((await client.call('POST', '/v1/auth/logout')).status).to.equal(200);
      const keep = await new ApiClient(spoor!.url).post('/v1/auth/login', { email, password: 'correct horse battery' });
      const opsToken = ops.token!;
      await spoor!.stop();
      spoor = undefined;
      const restarted = await startSpoor(mode, env);
      spoor = restarted!;
      const again = new ApiClient(restarted!.url);
      expect401(await again.withToken(client.token).get('/v1/users/account'), 'revoked token after restart');
      expect((await again.withToken(keep.body.id_token as string).get('/v1/users/account')).status).to.equal(200);
      expect((await again.withToken(opsToken).get('/v1/status/health')).status).to.equal(200);
    });
  });
}
