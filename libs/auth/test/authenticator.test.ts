import { expect } from 'chai';
import { ApiKeyService, Authenticator, BuiltInIssuer } from '../src/index.js';
import { expectAuthError } from './auth-assertions.js';
import { inMemoryRepositories } from './in-memory-repositories.js';

function setup() {
  const repos = inMemoryRepositories();
  const builtIn = new BuiltInIssuer({ ...repos, issuerUrl: 'http://spoor.test:8080' });
  const authenticator = new Authenticator({ ...repos, builtIn });
  return { repos, builtIn, authenticator, keys: new ApiKeyService(repos.apiKeys) };
}

describe('Authenticator', function () {
  describe('refuses bad headers with AuthError, never another error', function () {
    const { authenticator } = setup();
    const headers: Array<string | undefined> = [
      undefined, '', 'Bearer', 'Bearer ', 'Basic dXNlcjpwYXNz', 'garbage', 'Bearer garbage',
      'Bearer a.b.c', 'Bearer ...', 'Bearer eyJ.eyJ.sig', 'Bearer a.b.c.d.e', 'Bearer spk_', 'Bearer spk_short',
      `Bearer spk_${'A'.repeat(43)}`, `Bearer spk_${'A'.repeat(44)}`,
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
        account_id, email: 'owner@example.com', via: 'api_key',
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

  it('refuses to start with an external issuer equal to the built-in one', () => {
    const repos = inMemoryRepositories();
    const builtIn = new BuiltInIssuer({ ...repos, issuerUrl: 'http://spoor.test:8080/' });
    expect(() => new Authenticator({ ...repos, builtIn, external: { issuer: 'http://spoor.test:8080', audience: 'x' } }))
      .to.throw(/SPOOR_OIDC_ISSUER/);
  });
});
