// The external issuer against a real OpenID provider (oidc-provider) started by the test:
// real ID tokens from its authorization-code flow, forged ones signed with jose using the
// provider's own private keys (the test generated them), and the provider going away.
import { expect } from 'chai';
import {
  SignJWT,
  UnsecuredJWT,
  decodeProtectedHeader,
  exportSPKI,
  importJWK,
  type CryptoKey,
  type JWTPayload,
} from 'jose';
import { Authenticator, BuiltInIssuer, type ExternalIssuerOptions } from '../src/index.js';
import { expectAuthError } from './auth-assertions.js';
import { inMemoryRepositories } from './in-memory-repositories.js';
import {
  CLIENT_ID,
  OTHER_CLIENT_ID,
  startTestProvider,
  type ProviderKey,
  type TestProvider,
} from './oidc-test-provider.js';

const nowSeconds = () => Math.floor(Date.now() / 1000);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function setup(provider: TestProvider, external: Partial<ExternalIssuerOptions> = {}) {
  const repos = inMemoryRepositories();
  const builtIn = new BuiltInIssuer({ ...repos, issuerUrl: 'http://spoor.test:8080' });
  const authenticator = new Authenticator({
    ...repos,
    builtIn,
    external: { issuer: provider.issuer, audience: CLIENT_ID, ...external },
  });
  return { repos, authenticator, bearer: (token: string) => authenticator.authenticate(`Bearer ${token}`) };
}

describe('ExternalIssuer (through Authenticator) against a real oidc-provider', function () {
  let provider: TestProvider;

  before(async () => {
    provider = await startTestProvider('RS256');
  });
  after(async () => {
    await provider.stop();
  });

  /** A token the provider never issued, signed with one of its keys. */
  function forge(claims: JWTPayload, key: ProviderKey = provider.keys[0]!, kid: string = key.kid): Promise<string> {
    return new SignJWT(claims).setProtectedHeader({ alg: key.alg, kid }).sign(key.privateKey);
  }
  const validClaims = (): JWTPayload => ({
    iss: provider.issuer,
    aud: CLIENT_ID,
    sub: 'forger',
    iat: nowSeconds(),
    exp: nowSeconds() + 300,
  });

  it('accepts a real ID token, creates the account on first sight and reuses it after', async () => {
    const { repos, bearer } = setup(provider);
    const first = await bearer(await provider.obtainIdToken('alice'));
    expect(first).to.include({ email: 'alice@example.test', via: 'token' });
    expect(repos.accounts.rows).to.have.length(1);
    expect(repos.accounts.rows[0]).to.include({ issuer: provider.issuer, subject: 'alice', password_hash: null });

    const again = await bearer(await provider.obtainIdToken('alice'));
    expect(again.account_id).to.equal(first.account_id);
    const bob = await bearer(await provider.obtainIdToken('bob'));
    expect(bob.account_id).to.not.equal(first.account_id);
    expect(repos.accounts.rows).to.have.length(2);
  });

  it('logout revokes an external token by its hash until it expires; another token still works', async () => {
    const { repos, authenticator, bearer } = setup(provider);
    const token = await provider.obtainIdToken('carol');
    const principal = await bearer(token);
    expect(principal.token!.id).to.match(/^sha256:[0-9a-f]{64}$/);
    expect(await authenticator.logout(principal)).to.equal(true);
    await expectAuthError(bearer(token), 'revoked');
    expect(repos.revokedTokens.rows[0]!.expires_at).to.be.greaterThan(Date.now());
    // (A token issued for carol in the same second is byte-identical: RS256 is deterministic.)
    expect(await bearer(await provider.obtainIdToken('dave'))).to.include({ via: 'token' });
  });

  it('accepts a token signed by the provider key it forged with valid claims (control case)', async () => {
    const { bearer } = setup(provider);
    expect(await bearer(await forge(validClaims()))).to.include({ via: 'token' });
  });

  it('refuses alg "none" (RFC 7519 §6 unsecured JWT)', async () => {
    const { bearer } = setup(provider);
    const unsecured = new UnsecuredJWT(validClaims()).encode();
    await expectAuthError(bearer(unsecured), 'invalid_token');
  });

  it("refuses HS256 signed with the provider's public key as the HMAC secret", async () => {
    const { bearer } = setup(provider);
    const rsa = provider.keys.find((k) => k.alg === 'RS256')!;
    const pem = await exportSPKI((await importJWK(rsa.publicJwk, 'RS256')) as CryptoKey);
    for (const secret of [pem, JSON.stringify(rsa.publicJwk)]) {
      const token = await new SignJWT(validClaims())
        .setProtectedHeader({ alg: 'HS256', kid: rsa.kid })
        .sign(new TextEncoder().encode(secret));
      await expectAuthError(bearer(token), 'invalid_token');
    }
  });

  it("refuses a wrong issuer, even when signed with the provider's key", async () => {
    const { bearer } = setup(provider);
    await expectAuthError(bearer(await forge({ ...validClaims(), iss: 'https://evil.example' })), 'unknown_issuer');
    await expectAuthError(bearer(await forge({ ...validClaims(), iss: `${provider.issuer}/` })), 'unknown_issuer');
    await expectAuthError(bearer(await forge({ ...validClaims(), iss: undefined })), 'invalid_token');
  });

  it('refuses a real token issued to another client (wrong aud)', async () => {
    const { bearer } = setup(provider);
    const err = await expectAuthError(bearer(await provider.obtainIdToken('alice', OTHER_CLIENT_ID)), 'invalid_token');
    expect(err.detail).to.contain('aud');
  });

  it('refuses an expired token, allowing the documented 30 s of leeway', async () => {
    const { bearer } = setup(provider);
    await expectAuthError(bearer(await forge({ ...validClaims(), exp: nowSeconds() - 120 })), 'expired');
    expect(await bearer(await forge({ ...validClaims(), exp: nowSeconds() - 10 }))).to.include({ via: 'token' });
  });

  it('refuses a token whose nbf is in the future', async () => {
    const { bearer } = setup(provider);
    const err = await expectAuthError(
      bearer(await forge({ ...validClaims(), nbf: nowSeconds() + 300 })),
      'invalid_token',
    );
    expect(err.detail).to.contain('nbf');
  });

  it('refuses a token without exp, or without sub', async () => {
    const { bearer } = setup(provider);
    const { exp: _exp, ...noExp } = validClaims();
    await expectAuthError(bearer(await forge(noExp)), 'invalid_token');
    const { sub: _sub, ...noSub } = validClaims();
    await expectAuthError(bearer(await forge(noSub)), 'invalid_token');
  });

  it('refuses a token with a tampered payload', async () => {
    const { bearer } = setup(provider);
    const [header, , signature] = (await provider.obtainIdToken('alice')).split('.');
    const payload = Buffer.from(JSON.stringify({ ...validClaims(), sub: 'admin' })).toString('base64url');
    await expectAuthError(bearer(`${header}.${payload}.${signature}`), 'invalid_token');
  });

  it('refuses an unknown issuer when no external issuer is configured', async () => {
    const repos = inMemoryRepositories();
    const builtIn = new BuiltInIssuer({ ...repos, issuerUrl: 'http://spoor.test:8080' });
    const authenticator = new Authenticator({ ...repos, builtIn });
    await expectAuthError(
      authenticator.authenticate(`Bearer ${await provider.obtainIdToken('alice')}`),
      'unknown_issuer',
    );
  });
});

describe('ExternalIssuer key rotation and outages', function () {
  let provider: TestProvider;

  beforeEach(async () => {
    provider = await startTestProvider('RS256');
  });
  afterEach(async () => {
    await provider.stop();
  });

  it('verifies the new kid after one refetch; the cooldown stops a refetch storm', async () => {
    // Everything slow (key generation, signing) happens before the cooldown window opens, so
    // the window only holds verifications, even on a loaded machine.
    const cooldown = 2_000;
    const { bearer } = setup(provider, { jwksCooldownMs: cooldown });
    const oldToken = await provider.obtainIdToken('alice');
    const next = await provider.prepareKeys('ES256');
    const newKey = next.keys[0]!;
    const forge = (kid: string) =>
      new SignJWT({ iss: provider.issuer, aud: CLIENT_ID, sub: 'x', exp: nowSeconds() + 60 })
        .setProtectedHeader({ alg: 'ES256', kid })
        .sign(newKey.privateKey);
    const signedWithNewKey = await forge(newKey.kid);
    const storm = await Promise.all(Array.from({ length: 25 }, (_, i) => forge(`storm-${i}`)));
    const secondStorm = await Promise.all(Array.from({ length: 25 }, (_, i) => forge(`again-${i}`)));

    await bearer(oldToken);
    const fetchedAt = Date.now();
    expect(provider.jwksRequests).to.equal(1);
    provider.rotateKeys(next);
    // Inside the cooldown an unknown kid is refused without asking the provider again,
    // however many such tokens arrive.
    await expectAuthError(bearer(signedWithNewKey), 'invalid_token');
    await Promise.all(storm.map((token) => expectAuthError(bearer(token), 'invalid_token')));
    expect(Date.now() - fetchedAt, 'the machine is too slow for this window').to.be.below(cooldown);
    expect(provider.jwksRequests).to.equal(1);

    // A real token from the rotated provider verifies once the cooldown is over: one refetch.
    const newToken = await provider.obtainIdToken('alice');
    expect(decodeProtectedHeader(newToken)).to.include({ alg: 'ES256', kid: newKey.kid });
    await sleep(Math.max(0, fetchedAt + cooldown + 100 - Date.now()));
    const principal = await bearer(newToken);
    expect(principal.via).to.equal('token');
    expect(provider.jwksRequests).to.equal(2);
    const refetchedAt = Date.now();
    await Promise.all(secondStorm.map((token) => expectAuthError(bearer(token), 'invalid_token')));
    expect(await bearer(signedWithNewKey)).to.include({ via: 'token' });
    expect(Date.now() - refetchedAt, 'the machine is too slow for this window').to.be.below(cooldown);
    expect(provider.jwksRequests).to.equal(2);

    // The old key left the JWKS with the rotation: its tokens no longer verify.
    await expectAuthError(bearer(oldToken), 'invalid_token');
  });

  it('answers AuthError, and stops asking, while the JWKS endpoint fails', async () => {
    const { bearer } = setup(provider, { failureBackoffMs: 60_000 });
    const token = await provider.obtainIdToken('alice');
    provider.jwksDown = true;
    await expectAuthError(bearer(token), 'issuer_unavailable');
    await Promise.all(Array.from({ length: 10 }, () => expectAuthError(bearer(token), 'issuer_unavailable')));
    expect(provider.jwksRequests).to.equal(1);
  });

  it('answers AuthError when the provider is stopped, before and after keys were cached', async () => {
    const warm = setup(provider, { jwksCooldownMs: 0 });
    const token = await provider.obtainIdToken('alice');
    await warm.bearer(token);
    const cold = setup(provider);
    await provider.stop();

    await expectAuthError(cold.bearer(token), 'issuer_unavailable');
    // Cached keys keep verifying known kids while the provider is down ...
    expect(await warm.bearer(token)).to.include({ via: 'token' });
    // ... and an unknown kid needs a refetch, which fails cleanly.
    const stranger = await new SignJWT({ iss: provider.issuer, aud: CLIENT_ID, sub: 'x', exp: nowSeconds() + 60 })
      .setProtectedHeader({ alg: 'RS256', kid: 'unknown-kid' })
      .sign(provider.keys[0]!.privateKey);
    await expectAuthError(warm.bearer(stranger), 'issuer_unavailable');
  });

  it('answers AuthError for an unreachable issuer URL and a discovery document naming another issuer', async () => {
    const unreachable = setup(provider, { issuer: 'http://127.0.0.1:9' });
    const token = await new SignJWT({ iss: 'http://127.0.0.1:9', aud: CLIENT_ID, sub: 'x', exp: nowSeconds() + 60 })
      .setProtectedHeader({ alg: 'RS256', kid: provider.keys[0]!.kid })
      .sign(provider.keys[0]!.privateKey);
    await expectAuthError(unreachable.bearer(token), 'issuer_unavailable');

    // The provider's document says `issuer: http://127.0.0.1:<port>`, not this spelling.
    const misnamed = `${provider.issuer}/`;
    const mismatch = setup(provider, { issuer: misnamed });
    const misToken = await new SignJWT({ iss: misnamed, aud: CLIENT_ID, sub: 'x', exp: nowSeconds() + 60 })
      .setProtectedHeader({ alg: 'RS256', kid: provider.keys[0]!.kid })
      .sign(provider.keys[0]!.privateKey);
    await expectAuthError(mismatch.bearer(misToken), 'issuer_unavailable');
    expect(provider.jwksRequests).to.equal(0);
  });
});
