import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { SignJWT, createLocalJWKSet, decodeJwt, decodeProtectedHeader, importJWK, jwtVerify, type JWK } from 'jose';
import { HttpError } from '@spoor/http';
import { Authenticator, BuiltInIssuer, InvalidCredentialsError, type BuiltInIssuerOptions } from '../src/index.js';
import { expectAuthError } from './auth-assertions.js';
import { inMemoryRepositories } from './in-memory-repositories.js';

const ISSUER = 'http://spoor.test:8080';
const PASSWORD = 'correct horse battery';

function setup(overrides: Partial<BuiltInIssuerOptions> = {}) {
  const repos = inMemoryRepositories();
  const issuer = new BuiltInIssuer({ ...repos, issuerUrl: ISSUER, ...overrides });
  const authenticator = new Authenticator({ ...repos, builtIn: issuer });
  return { repos, issuer, authenticator, bearer: (t: string) => authenticator.authenticate(`Bearer ${t}`) };
}

async function rejection(work: Promise<unknown>): Promise<unknown> {
  try {
    await work;
  } catch (err) {
    return err;
  }
  throw new Error('expected a rejection');
}

describe('BuiltInIssuer', function () {
  it('signs up: creates the account and answers an ES256 ID token that authenticates', async () => {
    const { repos, issuer, bearer } = setup();
    const issued = await issuer.signup('Alice@Example.com', PASSWORD);
    expect(repos.accounts.rows[0]).to.include({
      account_id: issued.account_id,
      subject: issued.account_id,
      issuer: 'spoor',
      email: 'alice@example.com',
    });
    expect(repos.accounts.rows[0]?.password_hash).to.match(/^scrypt\$15\$8\$1\$/);

    const header = decodeProtectedHeader(issued.id_token);
    expect(header).to.include({ alg: 'ES256', typ: 'JWT' });
    const { kid } = await issuer.init();
    expect(header.kid).to.equal(kid);
    const claims = decodeJwt(issued.id_token);
    expect(claims).to.include({ iss: ISSUER, aud: 'spoor', sub: issued.account_id, email: 'alice@example.com' });
    expect(claims.exp! - claims.iat!).to.equal(86_400);
    expect(claims.nbf).to.equal(claims.iat);
    expect(claims.jti).to.match(/^[0-9a-f-]{36}$/);
    expect(decodeJwt((await issuer.login('alice@example.com', PASSWORD)).id_token).jti).to.not.equal(claims.jti);
    expect(issued.expires_at).to.equal(claims.exp! * 1000);

    expect(await bearer(issued.id_token)).to.deep.equal({
      account_id: issued.account_id,
      email: 'alice@example.com',
      via: 'token',
      scope: 'full',
      operator: false,
      token: { id: `jti:${claims.jti}`, expires_at: (claims.exp! + 30) * 1000 },
    });
  });

  it('logs in with the right password (email case-insensitive), answering the same account', async () => {
    const { issuer, bearer } = setup();
    const { account_id } = await issuer.signup('bob@example.com', PASSWORD);
    const login = await issuer.login('BOB@example.com', PASSWORD);
    expect(login.account_id).to.equal(account_id);
    expect((await bearer(login.id_token)).account_id).to.equal(account_id);
  });

  it('refuses a wrong password and an unknown email with the same error, in similar time', async () => {
    const { issuer } = setup();
    await issuer.signup('carol@example.com', PASSWORD);
    await issuer.init();
    const timed = async (email: string, password: string) => {
      const started = process.hrtime.bigint();
      const err = await rejection(issuer.login(email, password));
      return { err, ms: Number(process.hrtime.bigint() - started) / 1e6 };
    };
    const wrong = [];
    const unknown = [];
    for (let i = 0; i < 3; i += 1) {
      wrong.push(await timed('carol@example.com', 'not the password'));
      unknown.push(await timed('nobody@example.com', PASSWORD));
    }
    for (const { err } of [...wrong, ...unknown]) {
      expect(err).to.be.instanceOf(InvalidCredentialsError);
      expect(err).to.include({ status: 401, detail: 'Invalid email or password' });
    }
    const median = (xs: Array<{ ms: number }>) => xs.map((x) => x.ms).sort((a, b) => a - b)[1]!;
    const ratio = median(unknown) / median(wrong);
    expect(ratio, `unknown ${median(unknown)} ms vs wrong ${median(wrong)} ms`).to.be.within(0.25, 4);
    expect(await rejection(issuer.login('not-an-email', PASSWORD))).to.be.instanceOf(InvalidCredentialsError);
  });

  it('refuses a duplicate email (409), whatever its case, also when two signups race', async () => {
    const { issuer, repos } = setup();
    await issuer.signup('dave@example.com', PASSWORD);
    const err = await rejection(issuer.signup('DAVE@example.com', 'another password'));
    expect(err).to.be.instanceOf(HttpError).and.include({ status: 409, code: 'email_taken' });

    const results = await Promise.allSettled([
      issuer.signup('erin@example.com', PASSWORD),
      issuer.signup('erin@example.com', PASSWORD),
    ]);
    expect(results.map((r) => r.status).sort()).to.deep.equal(['fulfilled', 'rejected']);
    const failed = results.find((r) => r.status === 'rejected');
    expect(failed?.reason).to.be.instanceOf(HttpError).and.include({ code: 'email_taken' });
    expect(repos.accounts.rows.filter((r) => r.email === 'erin@example.com')).to.have.length(1);
  });

  it('enforces the password and email rules with a 422 naming the field', async () => {
    const { issuer } = setup();
    for (const [email, password, field] of [
      ['f@example.com', 'short', 'password'],
      ['f@example.com', '1234567', 'password'],
      ['f@example.com', 'x'.repeat(257), 'password'],
      ['not an email', PASSWORD, 'email'],
      ['', PASSWORD, 'email'],
    ] as const) {
      const err = await rejection(issuer.signup(email, password));
      expect(err, `${email} / ${password.length}`)
        .to.be.instanceOf(HttpError)
        .and.include({ status: 422, code: 'validation_error' });
      const [detail] = (err as HttpError).detail as Array<{ loc: string[] }>;
      expect(detail?.loc).to.deep.equal(['body', field]);
    }
    await issuer.signup('g@example.com', '12345678');
    await issuer.signup('h@example.com', 'y'.repeat(256));
  });

  it('creates the signing key once and keeps it: a second issuer on the same store signs with the same kid', async () => {
    const { repos, issuer } = setup();
    const first = await issuer.signup('k@example.com', PASSWORD);
    const again = new BuiltInIssuer({ ...repos, issuerUrl: ISSUER });
    expect((await again.init()).kid).to.equal(decodeProtectedHeader(first.id_token).kid);
    expect(repos.signingKeys.rows).to.have.length(1);
    // And it verifies tokens the first one issued.
    expect((await again.verifyIdToken(first.id_token)).sub).to.equal(first.account_id);
  });

  it('converges on one key when several issuers start at once on an empty store', async () => {
    const repos = inMemoryRepositories();
    let now = 1_700_000_000_000;
    const clock = () => (now += 1);
    const issuers = Array.from({ length: 4 }, () => new BuiltInIssuer({ ...repos, issuerUrl: ISSUER, clock }));
    const kids = await Promise.all(issuers.map(async (i) => (await i.init()).kid));
    expect(repos.signingKeys.rows.length, 'all raced to create').to.equal(4);
    expect(new Set(kids).size).to.equal(1);
    expect(kids[0]).to.equal([...repos.signingKeys.rows].sort((a, b) => a.created_at - b.created_at)[0]?.kid);
  });

  it("re-converges when a racer's older key was committed after it listed", async () => {
    let now = 1_700_000_000_000;
    const clock = () => (now += 1);
    const repos = inMemoryRepositories();
    const early = new BuiltInIssuer({ ...repos, issuerUrl: ISSUER, clock, keyReloadCooldownMs: 0 });
    const { kid: ownKid } = await early.init();
    // A racer generated its key before ours (older created_at) but its insert landed later.
    const racerRepos = inMemoryRepositories();
    await new BuiltInIssuer({ ...racerRepos, issuerUrl: ISSUER, clock: () => 1_600_000_000_000 }).init();
    repos.signingKeys.rows.push(...racerRepos.signingKeys.rows);
    const late = new BuiltInIssuer({ ...repos, issuerUrl: ISSUER, clock });
    const { kid: oldestKid } = await late.init();
    expect(oldestKid).to.not.equal(ownKid);

    // `early` still signs with its own key until it meets a token with the other kid ...
    const before = await early.signup('r1@example.com', PASSWORD);
    expect(decodeProtectedHeader(before.id_token).kid).to.equal(ownKid);
    const fromLate = await late.signup('r2@example.com', PASSWORD);
    expect((await early.verifyIdToken(fromLate.id_token)).sub).to.equal(fromLate.account_id);
    // ... which made it re-read the store and adopt the oldest key; old tokens still verify.
    const after = await early.login('r1@example.com', PASSWORD);
    expect(decodeProtectedHeader(after.id_token).kid).to.equal(oldestKid);
    expect((await late.verifyIdToken(before.id_token)).sub).to.equal(before.account_id);
  });

  it('refuses a tampered token, and a token with an unknown kid', async () => {
    const { issuer, bearer } = setup();
    const { id_token } = await issuer.signup('m@example.com', PASSWORD);
    const [header, payload, signature] = id_token.split('.') as [string, string, string];
    const claims = decodeJwt(id_token);
    const forgedPayload = Buffer.from(JSON.stringify({ ...claims, sub: 'someone-else' })).toString('base64url');
    await expectAuthError(bearer(`${header}.${forgedPayload}.${signature}`), 'invalid_token');
    const flipped = signature.slice(0, 10) + (signature[10] === 'A' ? 'B' : 'A') + signature.slice(11);
    await expectAuthError(bearer(`${header}.${payload}.${flipped}`), 'invalid_token');
    const otherKid = Buffer.from(JSON.stringify({ ...decodeProtectedHeader(id_token), kid: 'nope' })).toString(
      'base64url',
    );
    await expectAuthError(bearer(`${otherKid}.${payload}.${signature}`), 'invalid_token');
  });

  it('refuses tokens signed with its own key for another issuer or another audience', async () => {
    const { repos, issuer, bearer } = setup();
    await issuer.init();
    const otherIssuer = new BuiltInIssuer({ ...repos, issuerUrl: 'http://elsewhere.test' });
    await expectAuthError(bearer((await otherIssuer.signup('n@example.com', PASSWORD)).id_token), 'unknown_issuer');
    const otherAudience = new BuiltInIssuer({ ...repos, issuerUrl: ISSUER, audience: 'not-spoor' });
    await expectAuthError(bearer((await otherAudience.login('n@example.com', PASSWORD)).id_token), 'invalid_token');

    // Same key, right iss and aud, but signed by someone holding the key outside the issuer
    // with alg ES256 and no exp: refused for the missing exp.
    const record = repos.signingKeys.rows[0]!;
    const key = await importJWK(JSON.parse(record.private_jwk) as JWK, 'ES256');
    const noExp = await new SignJWT({ email: 'n@example.com' })
      .setProtectedHeader({ alg: 'ES256', kid: record.kid })
      .setIssuer(ISSUER)
      .setAudience('spoor')
      .setSubject('someone')
      .sign(key);
    await expectAuthError(bearer(noExp), 'invalid_token');
  });

  it('refuses its tokens once expired (30 s leeway) and before nbf', async () => {
    let now = 1_700_000_000_000;
    const { issuer, bearer } = setup({ clock: () => now, tokenTtlSeconds: 60 });
    const { id_token, expires_at } = await issuer.signup('o@example.com', PASSWORD);
    expect(expires_at).to.equal(now + 60_000);
    now += 60_000 + 29_000;
    expect((await bearer(id_token)).via).to.equal('token');
    now += 2_000;
    await expectAuthError(bearer(id_token), 'expired');
    now -= 60_000 + 31_000 + 31_000; // before iat/nbf, beyond the leeway
    await expectAuthError(bearer(id_token), 'invalid_token');
  });

  it('publishes public JWKs only, and a discovery document that matches its tokens', async () => {
    const { issuer } = setup({ issuerUrl: `${ISSUER}/` });
    const { id_token } = await issuer.signup('p@example.com', PASSWORD);
    const jwks = await issuer.jwks();
    expect(jwks.keys).to.have.length(1);
    const [key] = jwks.keys;
    expect(key).to.include({
      kty: 'EC',
      crv: 'P-256',
      alg: 'ES256',
      use: 'sig',
      kid: decodeProtectedHeader(id_token).kid,
    });
    expect(key).to.not.have.property('d');

    const discovery = issuer.discovery();
    expect(discovery).to.include({ issuer: ISSUER, jwks_uri: `${ISSUER}/.well-known/jwks.json` });
    expect(discovery.id_token_signing_alg_values_supported).to.deep.equal(['ES256']);
    expect(discovery.subject_types_supported).to.deep.equal(['public']);
    expect(discovery.response_types_supported).to.deep.equal(['id_token']);
    expect(discovery.authorization_endpoint).to.be.a('string');

    // Anyone holding only the JWKS can verify the token (what a relying party does).
    const { payload } = await jwtVerify(id_token, createLocalJWKSet(jwks), {
      issuer: discovery.issuer,
      audience: 'spoor',
      algorithms: discovery.id_token_signing_alg_values_supported,
    });
    expect(payload.email).to.equal('p@example.com');
  });

  describe('served over HTTP and consumed as an external issuer', function () {
    let server: Server;
    afterEach(async () => {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    });

    it('its discovery document and JWKS are enough for an OIDC relying party', async () => {
      let issuer: BuiltInIssuer | undefined;
      server = createServer((req, res) => {
        const send = (body: unknown) => res.setHeader('content-type', 'application/json').end(JSON.stringify(body));
        if (req.url === '/.well-known/openid-configuration') return send(issuer!.discovery());
        if (req.url === '/.well-known/jwks.json') return void issuer!.jwks().then(send);
        res.writeHead(404).end();
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const repos = inMemoryRepositories();
      issuer = new BuiltInIssuer({ ...repos, issuerUrl: url });
      const { id_token } = await issuer.signup('q@example.com', PASSWORD);

      // Another Spoor, configured with this one as SPOOR_OIDC_ISSUER.
      const remote = inMemoryRepositories();
      const consumer = new Authenticator({
        ...remote,
        builtIn: new BuiltInIssuer({ ...remote, issuerUrl: 'http://consumer.test' }),
        external: { issuer: url, audience: 'spoor' },
      });
      const principal = await consumer.authenticate(`Bearer ${id_token}`);
      expect(principal).to.include({ email: 'q@example.com', via: 'token' });
      expect(remote.accounts.rows[0]).to.include({ issuer: url, password_hash: null });
    });
  });
});
