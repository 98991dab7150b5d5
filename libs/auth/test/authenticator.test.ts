import { expect } from 'chai';
import { SignJWT, importJWK } from 'jose';
import {
  ApiKeyService,
  Authenticator,
  BuiltInIssuer,
  CLOCK_TOLERANCE_SECONDS,
  VERIFIED_TOKEN_MEMO_MS,
} from '../src/index.js';
import { expectAuthError } from './auth-assertions.js';
import { inMemoryRepositories } from './in-memory-repositories.js';

function setup(adminEmails: string[] = []) {
  const repos = inMemoryRepositories();
  const builtIn = new BuiltInIssuer({ ...repos, issuerUrl: 'http://spoor.test:8080' });
  const authenticator = new Authenticator({ ...repos, builtIn, adminEmails });
  return { repos, builtIn, authenticator, keys: new ApiKeyService(repos.apiKeys) };
}

describe('Authenticator', function () {
  describe('refuses bad headers with AuthError, never another error', function () {
    const { authenticator } = setup();
    const headers: Array<string | undefined> = [
      undefined,
      '',
      'Bearer',
      'Bearer ',
      'Basic dXNlcjpwYXNz',
      'garbage',
      'Bearer garbage',
      'Bearer a.b.c',
      'Bearer ...',
      'Bearer eyJ.eyJ.sig',
      'Bearer a.b.c.d.e',
      'Bearer spk_',
      'Bearer spk_short',
      `Bearer spk_${'A'.repeat(43)}`,
      `Bearer spk_${'A'.repeat(44)}`,
      `Bearer ${Buffer.from('{"alg":"ES256"}').toString('base64url')}.${Buffer.from('[]').toString('base64url')}.x`,
      `Bearer ${Buffer.from('{"alg":"ES256"}').toString('base64url')}.${Buffer.from('{"iss":42}').toString('base64url')}.x`,
      `Bearer ${'a'.repeat(9000)}.b.c`,
    ];
    for (const header of headers) {
      it(JSON.stringify(header)?.slice(0, 60) ?? 'undefined', async () => {
        await expectAuthError(authenticator.authenticate(header));
      });
    }
  });

  describe('API keys', function () {
    it('authenticate the owner until revoked, then are refused at once', async () => {
      const { authenticator, builtIn, keys } = setup();
      const { account_id } = await builtIn.signup('owner@example.com', 'correct horse battery');
      const { api_key } = await keys.create(account_id, 'ci');
      expect(await authenticator.authenticate(`Bearer ${api_key}`)).to.deep.equal({
        account_id,
        email: 'owner@example.com',
        via: 'api_key',
        api_key_name: 'ci',
        scope: 'full',
        operator: false,
        token: null,
      });
      expect(await authenticator.authenticate(`bearer ${api_key}`)).to.include({ via: 'api_key' });

      expect(await keys.revoke(account_id, 'ci')).to.equal(true);
      await expectAuthError(authenticator.authenticate(`Bearer ${api_key}`), 'invalid_api_key');
    });

    it('refuses a well-formed key that was never issued, and one that is one character off', async () => {
      const { authenticator, builtIn, keys } = setup();
      const { account_id } = await builtIn.signup('owner@example.com', 'correct horse battery');
      const { api_key } = await keys.create(account_id, 'ci');
      const last = api_key.at(-1) === 'A' ? 'B' : 'A';
      await expectAuthError(authenticator.authenticate(`Bearer ${api_key.slice(0, -1)}${last}`), 'invalid_api_key');
    });

    it('refuses a key whose account no longer exists', async () => {
      const { authenticator, repos, keys } = setup();
      const { api_key } = await keys.create('ghost-account', 'ci');
      expect(repos.accounts.rows).to.have.length(0);
      await expectAuthError(authenticator.authenticate(`Bearer ${api_key}`), 'invalid_api_key');
    });
  });

  describe('ID tokens of the built-in issuer', function () {
    /** A token the built-in issuer's own key signs, for any subject. */
    async function forge(
      repos: ReturnType<typeof inMemoryRepositories>,
      builtIn: BuiltInIssuer,
      sub: string,
    ): Promise<string> {
      await builtIn.init();
      const [key] = repos.signingKeys.rows;
      const now = Math.floor(Date.now() / 1000);
      return new SignJWT({})
        .setProtectedHeader({ alg: 'ES256', kid: key!.kid })
        .setIssuer(builtIn.issuerUrl)
        .setAudience('spoor')
        .setSubject(sub)
        .setIssuedAt(now)
        .setExpirationTime(now + 600)
        .sign(await importJWK(JSON.parse(key!.private_jwk), 'ES256'));
    }

    it('refuses a validly signed token whose sub names no account', async () => {
      const { authenticator, builtIn, repos } = setup();
      const token = await forge(repos, builtIn, 'no-such-account');
      await expectAuthError(authenticator.authenticate(`Bearer ${token}`), 'unknown_account');
    });

    it('refuses a token once its account is gone from the store', async () => {
      const { authenticator, builtIn, repos } = setup();
      const { id_token } = await builtIn.signup('gone@example.com', 'correct horse battery');
      expect(await authenticator.authenticate(`Bearer ${id_token}`)).to.include({ via: 'token' });
      repos.accounts.rows.length = 0;
      await expectAuthError(authenticator.authenticate(`Bearer ${id_token}`), 'unknown_account');
    });

    it('logout revokes that token only: another token of the account still works', async () => {
      const { authenticator, builtIn, repos } = setup();
      const first = await builtIn.signup('out@example.com', 'correct horse battery');
      const second = await builtIn.login('out@example.com', 'correct horse battery');
      const principal = await authenticator.authenticate(`Bearer ${first.id_token}`);
      expect(await authenticator.logout(principal)).to.equal(true);
      await expectAuthError(authenticator.authenticate(`Bearer ${first.id_token}`), 'revoked');
      expect(await authenticator.authenticate(`Bearer ${second.id_token}`)).to.include({
        account_id: first.account_id,
      });
      expect(repos.revokedTokens.rows).to.have.length(1);
      expect(repos.revokedTokens.rows[0]!.expires_at).to.equal(first.expires_at + 30_000);
    });

    it('revokes a built-in token without jti by its hash', async () => {
      const { authenticator, builtIn, repos } = setup();
      const { account_id } = await builtIn.signup('old@example.com', 'correct horse battery');
      const token = await forge(repos, builtIn, account_id);
      const principal = await authenticator.authenticate(`Bearer ${token}`);
      expect(principal.token!.id).to.match(/^sha256:[0-9a-f]{64}$/);
      await authenticator.logout(principal);
      await expectAuthError(authenticator.authenticate(`Bearer ${token}`), 'revoked');
    });
  });

  describe('remembered ID tokens (issue 15)', function () {
    /** One clock for the issuer and the authenticator; counts the signature checks. */
    function clocked() {
      const time = { now: Date.UTC(2026, 0, 1) };
      const repos = inMemoryRepositories();
      const builtIn = new BuiltInIssuer({ ...repos, issuerUrl: 'http://spoor.test:8080', clock: () => time.now });
      let checks = 0;
      const verify = builtIn.verifyIdToken.bind(builtIn);
      builtIn.verifyIdToken = (token: string) => {
        checks++;
        return verify(token);
      };
      const authenticator = new Authenticator({ ...repos, builtIn, clock: () => time.now });
      return { time, repos, builtIn, authenticator, checks: () => checks };
    }

    it('checks the signature once a minute at most, the revocation and the account on every request', async () => {
      const { time, repos, builtIn, authenticator, checks } = clocked();
      const first = await builtIn.signup('memo@example.com', 'correct horse battery');
      const second = await builtIn.login('memo@example.com', 'correct horse battery');
      await authenticator.authenticate(`Bearer ${first.id_token}`);
      await authenticator.authenticate(`Bearer ${first.id_token}`);
      expect(checks()).to.equal(1);
      time.now += VERIFIED_TOKEN_MEMO_MS;
      await authenticator.authenticate(`Bearer ${first.id_token}`);
      expect(checks()).to.equal(2);

      // Revocation (logout, here or in another process) and the account's deletion: at once.
      const principal = await authenticator.authenticate(`Bearer ${first.id_token}`);
      await authenticator.logout(principal);
      await expectAuthError(authenticator.authenticate(`Bearer ${first.id_token}`), 'revoked');
      await authenticator.authenticate(`Bearer ${second.id_token}`);
      repos.accounts.rows.length = 0;
      await expectAuthError(authenticator.authenticate(`Bearer ${second.id_token}`), 'unknown_account');
    });

    it('never past its expiry: a remembered token is refused once it expired', async () => {
      const { time, builtIn, authenticator } = clocked();
      const { id_token, expires_at } = await builtIn.signup('late@example.com', 'correct horse battery');
      time.now = expires_at + CLOCK_TOLERANCE_SECONDS * 1000 - 1_000;
      expect(await authenticator.authenticate(`Bearer ${id_token}`)).to.include({ via: 'token' });
      time.now += 1_000;
      await expectAuthError(authenticator.authenticate(`Bearer ${id_token}`), 'expired');
    });

    it('remembers no refusal: a token refused once is checked again', async () => {
      const { builtIn, authenticator, checks } = clocked();
      const { id_token } = await builtIn.signup('twice@example.com', 'correct horse battery');
      const tampered = `${id_token.slice(0, -4)}AAAA`;
      await expectAuthError(authenticator.authenticate(`Bearer ${tampered}`));
      await expectAuthError(authenticator.authenticate(`Bearer ${tampered}`));
      expect(checks()).to.equal(2);
    });
  });

  describe('operators', function () {
    it("are the listed accounts' tokens and their operator-scoped keys, nothing else", async () => {
      const { authenticator, builtIn, keys } = setup(['Ops@Example.com']);
      const ops = await builtIn.signup('ops@example.com', 'correct horse battery');
      const user = await builtIn.signup('user@example.com', 'correct horse battery');
      const as = async (credential: string) => (await authenticator.authenticate(`Bearer ${credential}`)).operator;
      expect(await as(ops.id_token)).to.equal(true);
      expect(await as(user.id_token)).to.equal(false);
      expect(await as((await keys.create(ops.account_id, 'op', 'operator')).api_key)).to.equal(true);
      expect(await as((await keys.create(ops.account_id, 'full')).api_key)).to.equal(false);
      expect(await as((await keys.create(ops.account_id, 'read', 'read')).api_key)).to.equal(false);
      expect(await as((await keys.create(user.account_id, 'op', 'operator')).api_key)).to.equal(false);
    });
  });

  describe('while the store cannot answer (issue 16)', function () {
    it('honours an operator credential it accepted within the last 5 minutes, and nothing else', async () => {
      const repos = inMemoryRepositories();
      let now = Date.now();
      const builtIn = new BuiltInIssuer({ ...repos, issuerUrl: 'http://spoor.test:8080' });
      const authenticator = new Authenticator({
        ...repos,
        builtIn,
        adminEmails: ['ops@example.com'],
        clock: () => now,
      });
      const ops = await builtIn.signup('ops@example.com', 'correct horse battery');
      const user = await builtIn.signup('user@example.com', 'correct horse battery');
      const opsKey = (await new ApiKeyService(repos.apiKeys).create(ops.account_id, 'op', 'operator')).api_key;
      for (const credential of [ops.id_token, user.id_token, opsKey])
        await authenticator.authenticate(`Bearer ${credential}`);
      // The fault: every account read fails as a store that is away does.
      const get = repos.accounts.get.bind(repos.accounts);
      repos.accounts.get = async () => {
        throw new Error('connect ECONNREFUSED');
      };
      expect(await authenticator.authenticate(`Bearer ${ops.id_token}`)).to.include({
        account_id: ops.account_id,
        operator: true,
      });
      expect(await authenticator.authenticate(`Bearer ${opsKey}`)).to.include({ operator: true, via: 'api_key' });
      let failed: unknown = null;
      await authenticator.authenticate(`Bearer ${user.id_token}`).catch((err: unknown) => (failed = err));
      expect(String(failed), 'a non-operator gets the store failure as before').to.match(/ECONNREFUSED/);
      now += 5 * 60_000 + 1;
      failed = null;
      await authenticator.authenticate(`Bearer ${opsKey}`).catch((err: unknown) => (failed = err));
      expect(String(failed), 'not past the window').to.match(/ECONNREFUSED/);
      repos.accounts.get = get;
    });
  });

  it('logout with an API key revokes nothing', async () => {
    const { authenticator, builtIn, keys, repos } = setup();
    const { account_id } = await builtIn.signup('k@example.com', 'correct horse battery');
    const { api_key } = await keys.create(account_id, 'ci');
    expect(await authenticator.logout(await authenticator.authenticate(`Bearer ${api_key}`))).to.equal(false);
    expect(repos.revokedTokens.rows).to.deep.equal([]);
    expect(await authenticator.authenticate(`Bearer ${api_key}`)).to.include({ via: 'api_key', scope: 'full' });
  });

  it('refuses to start with an external issuer equal to the built-in one', () => {
    const repos = inMemoryRepositories();
    const builtIn = new BuiltInIssuer({ ...repos, issuerUrl: 'http://spoor.test:8080/' });
    expect(
      () => new Authenticator({ ...repos, builtIn, external: { issuer: 'http://spoor.test:8080', audience: 'x' } }),
    ).to.throw(/SPOOR_OIDC_ISSUER/);
  });
});
