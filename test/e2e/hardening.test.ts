import { expect } from 'chai';
import { decodeJwt, decodeProtectedHeader, importJWK, SignJWT } from 'jose';
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { chmod, mkdir, readdir, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { freePort, makeTempDir } from '@spoor/testkit';
import { ApiClient } from '../support/api-client.js';
import { DESKTOP_CHROME } from '../support/browser-visitor.js';
import { post, startSpoor, waitFor, type Harness } from '../support/spoor-harness.js';

// Issue 13: requests an attacker sends, each answered in the documented shape while the process
// keeps serving. The behaviour does not depend on the mode (it is the HTTP layer's), so these run
// on the embedded default; the ingest table in ingest-errors.test.ts runs in both modes.

const HOST_MAIN = join(process.cwd(), 'services/host/dist/src/main.js');
/** `{"a":{"a":…1…}}` nested `depth` deep, as text (the test's own JSON.stringify would overflow). */
const nestedJson = (depth: number) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;

/** The answer carries no stack trace and no file path of ours. */
function expectNoInternals(text: string): void {
  expect(text).not.to.match(/\bat .+\(.*:\d+:\d+\)|\/dist\/|node_modules|RangeError|URIError/);
}

async function expectHealthyQuickly(url: string): Promise<void> {
  const started = performance.now();
  const res = await fetch(`${url}/healthz`);
  expect(res.status).to.equal(200);
  // A generous bound on a shared machine: a blocked loop shows as seconds, not milliseconds.
  expect(performance.now() - started).to.be.below(1_000);
}

interface Operation {
  method: string;
  path: string;
  operationId: string;
  parameters: Array<{ name: string; in: string; required?: boolean }>;
}

function operationsOf(document: {
  paths: Record<string, Record<string, Omit<Operation, 'method' | 'path'>>>;
}): Operation[] {
  return Object.entries(document.paths).flatMap(([path, ops]) =>
    Object.entries(ops)
      .filter(([method]) => method !== 'options')
      .map(([method, op]) => ({
        method: method.toUpperCase(),
        path,
        operationId: op.operationId,
        parameters: op.parameters ?? [],
      })),
  );
}

describe('Hardening: hostile requests (issue 13)', function () {
  this.timeout(90_000);
  let spoor: Harness;
  let api: ApiClient;
  let operations: Operation[];

  before(async () => {
    spoor = (await startSpoor('embedded'))!;
    const signup = await new ApiClient(spoor.url).post('/v1/auth/signup', {
      email: `h-${randomUUID()}@example.com`,
      password: 'a long password',
    });
    api = new ApiClient(spoor.url, signup.body.id_token);
    operations = operationsOf((await api.get('/openapi.json')).body);
  });
  after(async () => spoor?.stop());

  it('answers a batch whose events are an object nested 10,000 deep with a 422 and keeps serving', async () => {
    const res = await post(`${spoor.url}/v1/event/batch`, `{"events":${nestedJson(10_000)}}`);
    expect(res.status).to.equal(422);
    expect(res.body.detail[0]).to.deep.include({ loc: ['body'], type: 'value_error' });
    expect(res.body.detail[0].msg).to.contain('64');
    await expectHealthyQuickly(spoor.url);
  });

  it('answers a signup whose email is nested 10,000 deep in JSON, without a stack trace', async () => {
    const res = await fetch(`${spoor.url}/v1/auth/signup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: `{"email":${nestedJson(10_000)},"password":"a long password"}`,
    });
    const text = await res.text();
    expect(res.status).to.equal(422);
    expect(res.headers.get('content-type')).to.match(/^application\/json/);
    expectNoInternals(text);
    expect(JSON.parse(text).detail[0].loc).to.deep.equal(['body']);
  });

  it('answers a signup whose email is a 30-deep object (under the body limit) with a 422 that leaves the input out', async () => {
    const res = await post(`${spoor.url}/v1/auth/signup`, `{"email":${nestedJson(30)},"password":"a long password"}`);
    expect(res.status).to.equal(422);
    expect(res.body.detail[0].loc).to.deep.equal(['body', 'email']);
    expect(res.body.detail[0]).not.to.have.property('input');
  });

  it('answers 400 in the documented shape for a malformed percent-encoding in every path parameter, with and without a token', async () => {
    const withParams = operations.filter((op) => op.parameters.some((p) => p.in === 'path'));
    expect(withParams.length).to.be.above(15);
    for (const op of withParams) {
      const path = op.path.replace(/\{\w+\}/g, '%ZZ');
      for (const client of [api, api.withToken(null)]) {
        const res = await client.call(
          op.method,
          path,
          { origin: 'http://localhost:3000', project: 'p/w' },
          op.method === 'GET' || op.method === 'DELETE' ? undefined : {},
        );
        expect(res.status, `${op.method} ${path}`).to.equal(400);
        expect(res.body.detail, `${op.method} ${path}`).to.be.a('string');
        expectNoInternals(res.text);
      }
    }
  });

  it('refuses (401) a token signed by the built-in key whose sub names no account', async () => {
    // What a deleted account's token, or a forged sub with a stolen signature, looks like.
    const real = api.token!;
    const claims = decodeJwt(real);
    const { kid } = decodeProtectedHeader(real);
    const keys = await spoor.store.signingKeys.list();
    const key = keys.find((k) => k.kid === kid)!;
    const forged = await new SignJWT({ email: 'ghost@example.com' })
      .setProtectedHeader({ alg: 'ES256', kid: key.kid, typ: 'JWT' })
      .setIssuer(claims.iss!)
      .setAudience(claims.aud as string)
      .setSubject(randomUUID())
      .setIssuedAt()
      .setNotBefore('0s')
      .setExpirationTime('1h')
      .sign(await importJWK(JSON.parse(key.private_jwk), 'ES256'));
    const res = await api.withToken(forged).get('/v1/users/account');
    expect(res.status).to.equal(401);
    expect(res.headers.get('www-authenticate')).to.equal('Bearer');
    expect((await api.get('/v1/users/account')).status).to.equal(200);
  });

  it('answers JSON without internals when the router itself fails, on a path no operation has', async () => {
    const res = await api.get('/v1/%E0%A4%A');
    expect([400, 404]).to.include(res.status);
    expect(res.headers.get('content-type')).to.match(/^application\/json/);
    expectNoInternals(res.text);
  });
});

describe('Hardening: rules with an unbounded cost (issue 13)', function () {
  this.timeout(90_000);
  const origin = 'http://localhost:4555';
  const project = 'cost/web';
  let spoor: Harness;
  let api: ApiClient;
  /** map over `width` literal items nested `levels` deep. */
  const nestedMap = (width: number, levels: number): unknown => {
    let logic: unknown = { '+': [1, 1] };
    for (let i = 0; i < levels; i++) logic = { map: [Array.from({ length: width }, (_, j) => j), logic] };
    return logic;
  };
  const doubling = {
    reduce: [Array.from({ length: 40 }, (_, i) => i), { merge: [{ var: 'accumulator' }, { var: 'accumulator' }] }, [1]],
  };

  before(async () => {
    spoor = (await startSpoor('embedded'))!;
    const signup = await new ApiClient(spoor.url).post('/v1/auth/signup', {
      email: `c-${randomUUID()}@example.com`,
      password: 'a long password',
    });
    api = new ApiClient(spoor.url, signup.body.id_token);
    await api.post('/v1/users/projects', { origin, project });
  });
  after(async () => spoor?.stop());

  for (const [label, logic, loc] of [
    ['a 300^6-step nested map', nestedMap(300, 6), ['body', 'logic', 'map', 1, 'map', 1, 'map', 1, 'map', 1, 'map']],
    ['a reduce that doubles an array 40 times', doubling, ['body', 'logic', 'reduce', 1, 'merge']],
  ] as const) {
    it(`refuses to save ${label} with a 422 locating the node`, async () => {
      const res = await api.post('/v1/rules', { origin, project, rule_id: 'heavy', logic, tags: ['x'] });
      expect(res.status).to.equal(422);
      expect(res.body.detail[0].loc).to.deep.equal(loc);
      expect(res.body.detail[0].msg).to.match(/more than/);
      expect((await api.get('/v1/rules/heavy', { origin, project })).status).to.equal(404);
    });
  }

  it('refuses /v1/rules/test with an 18 × 6 nested map (422) and keeps serving', async () => {
    const yaml = `- rule_id: heavy\n  logic: ${JSON.stringify(nestedMap(18, 6))}\n  tags: [x]\n`;
    const res = await api.post('/v1/rules/test', { sessions: [{ session_id: 's' }], rules: yaml });
    expect(res.status).to.equal(422);
    expect(res.body.detail[0].loc.slice(0, 2)).to.deep.equal(['body', 'rules']);
    await expectHealthyQuickly(spoor.url);
  });

  it('refuses /v1/rules/test whose sessions make a bounded rule too costly in total (422)', async () => {
    const yaml = '- rule_id: scan\n  logic: {"some": [{"var": "xs"}, {"==": [{"var": ""}, -1]}]}\n  tags: [x]\n';
    // Each session fits the per-evaluation budget (3,000 items × 5 steps); sixty of them pass the total.
    const sessions = Array.from({ length: 60 }, (_, i) => ({
      session_id: `s${i}`,
      xs: Array.from({ length: 3_000 }, (_, j) => j),
    }));
    const res = await api.post('/v1/rules/test', { sessions, rules: yaml });
    expect(res.status).to.equal(422);
    expect(res.body.detail[0].msg).to.match(/more than 500000 evaluation steps/);
    await expectHealthyQuickly(spoor.url);
  });
});

describe('Hardening: the DNS gate covers every endpoint that returns event rows (issue 13)', function () {
  this.timeout(90_000);
  /** Operations that answer raw or enriched event rows: 403 until the domain is verified. */
  const EVENT_ROW_OPERATIONS = [
    'get_events',
    'get_event',
    'get_events_enriched',
    'get_event_enriched',
    'get_sessions_session_id_events',
  ];
  const UNVERIFIED = 'https://unverified-gate.example';
  const VERIFIED = 'http://localhost:4321';
  const marker = `marker-${randomUUID()}`;
  let spoor: Harness;
  let api: ApiClient;
  let operations: Operation[];

  /** Registers a project on `origin`, sends one event carrying the marker, and waits for its session. */
  async function seed(origin: string, project: string): Promise<void> {
    expect((await api.post('/v1/users/projects', { origin, project })).status).to.equal(200);
    const sent = await post(
      `${spoor.url}/v1/event`,
      {
        project,
        origin,
        action: 'click',
        timestamp: Date.now(),
        session_id: 'gate-session',
        payload: { secret: marker },
      },
      { 'user-agent': DESKTOP_CHROME },
    );
    expect(sent.status).to.equal(200);
    await waitFor(
      () => api.get('/v1/sessions/gate-session', { origin, project }),
      (r) => r.status === 200,
      20_000,
      'the session',
    );
  }

  function call(op: Operation, origin: string, project: string) {
    const path = op.path.replace('{session_id}', 'gate-session').replace(/\{\w+\}/g, 'x');
    return api.get(path, { origin, project });
  }

  before(async () => {
    spoor = (await startSpoor('embedded'))!;
    const signup = await new ApiClient(spoor.url).post('/v1/auth/signup', {
      email: `g-${randomUUID()}@example.com`,
      password: 'a long password',
    });
    api = new ApiClient(spoor.url, signup.body.id_token);
    operations = operationsOf((await api.get('/openapi.json')).body).filter((op) => op.method === 'GET');
    await seed(UNVERIFIED, 'gate/unverified');
    await seed(VERIFIED, 'gate/verified');
  });
  after(async () => spoor?.stop());

  it('lists only operations the document has', () => {
    const ids = operations.map((op) => op.operationId);
    for (const id of EVENT_ROW_OPERATIONS) expect(ids).to.include(id);
  });

  for (const id of EVENT_ROW_OPERATIONS) {
    it(`${id}: 403 for an unverified domain, the events without project_id once verified`, async () => {
      const op = operations.find((o) => o.operationId === id)!;
      const refused = await call(op, UNVERIFIED, 'gate/unverified');
      expect(refused.status).to.equal(403);
      expect(refused.body.detail).to.contain('not verified');
      const allowed = await call(op, VERIFIED, 'gate/verified');
      expect(allowed.status).to.equal(200);
      expect(allowed.text).to.contain(marker);
      for (const e of allowed.body.events) expect(e).not.to.have.property('project_id');
    });
  }

  it('no other GET operation returns an unverified project’s event data', async () => {
    const others = operations.filter((op) => !EVENT_ROW_OPERATIONS.includes(op.operationId));
    expect(others.length).to.be.above(20);
    for (const op of others) {
      const res = await call(op, UNVERIFIED, 'gate/unverified');
      expect(res.status, `${op.operationId} answered ${res.status}`).to.be.below(500);
      expect(res.text, `${op.operationId} leaks event rows; add it to EVENT_ROW_OPERATIONS and gate it`).not.to.contain(
        marker,
      );
    }
  });
});

describe('Hardening: an unexpected rejection is logged and the process goes on serving (issue 13)', function () {
  this.timeout(90_000);

  it('logs the rejection and still answers /healthz', async () => {
    const dir = await makeTempDir('spoor-rejection');
    // A fault injected from outside the product: a promise rejected with no handler, after start-up.
    const provoke = join(dir, 'provoke.mjs');
    await writeFile(provoke, "setTimeout(() => { Promise.reject(new Error('provoked by the test')); }, 1500);\n");
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const child = spawn(process.execPath, ['--import', provoke, HOST_MAIN], {
      env: { ...process.env, SPOOR_DATA_DIR: join(dir, 'data'), SPOOR_PORT: String(port), SPOOR_LOG_LEVEL: 'error' },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
    try {
      await waitFor(
        async () => stderr,
        (s) => s.includes('provoked by the test') || child.exitCode !== null,
        60_000,
        'the rejection to be logged',
      );
      expect(child.exitCode, stderr).to.equal(null);
      const line = stderr.split('\n').find((l) => l.includes('provoked by the test'))!;
      expect(JSON.parse(line)).to.include({ level: 'error', msg: 'unhandled rejection' });
      await waitFor(
        () =>
          fetch(`${url}/healthz`).then(
            (r) => r.status,
            () => 0,
          ),
        (s) => s === 200,
        30_000,
        '/healthz after the rejection',
      );
      expect(child.exitCode).to.equal(null);
    } finally {
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
    }
  });
});

describe("Hardening: the data directory is its owner's alone (issue 13)", function () {
  this.timeout(90_000);

  /** Every path under `dir` with its permission bits. */
  async function modes(dir: string): Promise<Array<[string, number, boolean]>> {
    const out: Array<[string, number, boolean]> = [];
    const walk = async (path: string) => {
      // The running process renames its temporary files into place (the bus's offsets): one
      // listed a moment ago may be gone by its stat.
      const info = await stat(path).catch((err: NodeJS.ErrnoException) => {
        if (err.code === 'ENOENT') return null;
        throw err;
      });
      if (!info) return;
      out.push([path, info.mode & 0o777, info.isDirectory()]);
      if (info.isDirectory()) for (const name of await readdir(path)) await walk(join(path, name));
    };
    await walk(dir);
    return out;
  }

  it('creates files 0600 and folders 0700, and tightens a loose directory on start', async () => {
    const dir = await makeTempDir('spoor-perms');
    const data = join(dir, 'data');
    // What an older version or a restored backup may leave: world-readable folder and file.
    await mkdir(join(data, 'old'), { recursive: true });
    await writeFile(join(data, 'old', 'leftover'), 'x');
    await chmod(data, 0o755);
    await chmod(join(data, 'old'), 0o755);
    await chmod(join(data, 'old', 'leftover'), 0o644);
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const child = spawn(process.execPath, [HOST_MAIN], {
      env: { ...process.env, SPOOR_DATA_DIR: data, SPOOR_PORT: String(port), SPOOR_LOG_LEVEL: 'error' },
      stdio: ['ignore', 'ignore', 'ignore'],
    });
    try {
      // /healthz answers first; the API once every service has started.
      await waitFor(
        () =>
          fetch(`${url}/openapi.json`).then(
            (r) => r.status,
            () => 0,
          ),
        (s) => s === 200,
        60_000,
        'spoor to start',
      );
      const signup = await new ApiClient(url).post('/v1/auth/signup', {
        email: 'perms@example.com',
        password: 'a long password',
      });
      expect(signup.status).to.equal(200);
      const api = new ApiClient(url, signup.body.id_token);
      await api.post('/v1/users/projects', { origin: 'http://localhost:4777', project: 'perms/web' });
      expect(
        (
          await post(
            `${url}/v1/event`,
            { project: 'perms/web', action: 'a', timestamp: Date.now() },
            { 'user-agent': DESKTOP_CHROME },
          )
        ).status,
      ).to.equal(200);
      await waitFor(
        () => api.get('/v1/events', { origin: 'http://localhost:4777', project: 'perms/web' }),
        (r) => r.body?.events?.length === 1,
        20_000,
        'the event to be stored',
      );
      const found = await modes(data);
      expect(found.some(([p]) => p.endsWith('spoor.duckdb'))).to.equal(true);
      expect(found.some(([p]) => p.includes(`${join('bus', 'topics')}`))).to.equal(true);
      for (const [path, mode, isDir] of found) expect(mode.toString(8), path).to.equal(isDir ? '700' : '600');
    } finally {
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
    }
  });
});
