// Contract cases for accounts, API keys and signing keys; registered by store.contract.test.ts
// inside each backend's suite.
import { expect } from 'chai';
import type { Store } from '../src/index.js';
import { expectConflict, expectOneWinner } from './store-assertions.js';
import { INJECTION, T0, account, apiKey, externalAccount, signingKey } from './store-fixtures.js';

export function accountCases(store: () => Store): void {
  describe('accounts', function () {
    const ann = account({ account_id: 'acc-ann', email: 'Ann.Smith@Example.COM' });
    const annStored = { ...ann, email: 'ann.smith@example.com' };
    const ext = externalAccount({
      account_id: 'acc-ext',
      subject: 'sub-1',
      email: 'Bob@Example.com',
      created_at: T0 + 1,
    });

    before(async function () {
      await store().accounts.create(ann);
      await store().accounts.create(ext);
    });

    it('gets by id, finds by email (any case) and by (issuer, subject); stores the email lowercased', async function () {
      const { accounts } = store();
      expect(await accounts.get('acc-ann')).to.deep.equal(annStored);
      expect(await accounts.get('acc-404')).to.equal(null);
      for (const email of ['ann.smith@example.com', 'ANN.SMITH@EXAMPLE.COM', 'Ann.Smith@Example.COM']) {
        expect(await accounts.findByEmail(email)).to.deep.equal(annStored);
      }
      expect(await accounts.findByEmail('nobody@example.com')).to.equal(null);
      expect(await accounts.findBySubject('spoor', 'acc-ann')).to.deep.equal(annStored);
      expect(await accounts.findBySubject('https://idp.example', 'sub-1')).to.deep.equal({
        ...ext,
        email: 'bob@example.com',
      });
      expect(await accounts.findBySubject('https://other.example', 'sub-1')).to.equal(null);
    });

    it('finds only built-in accounts by email, and lets an external account share one', async function () {
      const { accounts } = store();
      expect(await accounts.findByEmail('bob@example.com')).to.equal(null);
      const bob = account({ account_id: 'acc-bob', email: 'bob@example.com' });
      await accounts.create(bob);
      expect(await accounts.findByEmail('BOB@example.com')).to.deep.equal(bob);
      await accounts.create(
        externalAccount({ account_id: 'acc-ext-2', subject: 'sub-2', email: 'ann.smith@example.com' }),
      );
      expect(await accounts.findByEmail('ann.smith@example.com')).to.deep.equal(annStored);
    });

    it('refuses a taken email (in any case), (issuer, subject) or account id', async function () {
      const { accounts } = store();
      await expectConflict(accounts.create(account({ account_id: 'acc-dup-email', email: 'ANN.smith@example.com' })));
      await expectConflict(accounts.create(externalAccount({ account_id: 'acc-dup-sub', subject: 'sub-1' })));
      await expectConflict(accounts.create(externalAccount({ account_id: 'acc-ann', subject: 'sub-new' })));
      for (const id of ['acc-dup-email', 'acc-dup-sub']) expect(await accounts.get(id)).to.equal(null);
      expect(await accounts.findBySubject('https://idp.example', 'sub-new')).to.equal(null);
      expect(await accounts.get('acc-ann')).to.deep.equal(annStored);
    });

    it('lets exactly one of two concurrent signups with one email win', async function () {
      const { accounts } = store();
      const racers = [
        account({ account_id: 'acc-race-1', email: 'race@example.com' }),
        account({ account_id: 'acc-race-2', email: 'RACE@example.com' }),
      ];
      const winner = await expectOneWinner(racers.map((r) => () => accounts.create(r)));
      const found = await accounts.findByEmail('race@example.com');
      expect(found?.account_id).to.equal(racers[winner]!.account_id);
      expect(await accounts.get(racers[1 - winner]!.account_id)).to.equal(null);
    });

    it('lets exactly one of two concurrent creates of one (issuer, subject) win', async function () {
      const { accounts } = store();
      const racers = ['acc-sub-race-1', 'acc-sub-race-2'].map((id) =>
        externalAccount({ account_id: id, subject: 'sub-race' }),
      );
      const winner = await expectOneWinner(racers.map((r) => () => accounts.create(r)));
      expect(await accounts.findBySubject('https://idp.example', 'sub-race')).to.deep.equal(racers[winner]);
      expect(await accounts.get(racers[1 - winner]!.account_id)).to.equal(null);
    });

    it('stores hostile values verbatim', async function () {
      const a = externalAccount({
        account_id: INJECTION,
        subject: INJECTION,
        issuer: INJECTION,
        password_hash: INJECTION,
      });
      await store().accounts.create(a);
      expect(await store().accounts.findBySubject(INJECTION, INJECTION)).to.deep.equal(a);
    });
  });
}

export function apiKeyCases(store: () => Store): void {
  describe('api keys', function () {
    const ci = apiKey({ account_id: 'key-acct', api_key_name: 'ci', key_hash: 'hash-ci', created_at: T0 + 2 });
    const deploy = apiKey({
      account_id: 'key-acct',
      api_key_name: 'deploy',
      key_hash: 'hash-deploy',
      created_at: T0 + 1,
    });
    const otherCi = apiKey({ account_id: 'key-other', api_key_name: 'ci', key_hash: 'hash-other-ci', created_at: T0 });

    before(async function () {
      for (const k of [ci, deploy, otherCi]) await store().apiKeys.create(k);
    });

    it("lists an account's live keys oldest first and finds a key by its hash", async function () {
      const { apiKeys } = store();
      expect(await apiKeys.list('key-acct')).to.deep.equal([deploy, ci]);
      expect(await apiKeys.list('key-other')).to.deep.equal([otherCi]);
      expect(await apiKeys.list('key-nobody')).to.deep.equal([]);
      expect(await apiKeys.findByHash('hash-ci')).to.deep.equal(ci);
      expect(await apiKeys.findByHash('hash-other-ci')).to.deep.equal(otherCi);
      expect(await apiKeys.findByHash('hash-404')).to.equal(null);
    });

    it('refuses a second live key of one name in one account only', async function () {
      await expectConflict(
        store().apiKeys.create(apiKey({ account_id: 'key-acct', api_key_name: 'ci', key_hash: 'hash-ci-2' })),
      );
      expect(await store().apiKeys.findByHash('hash-ci-2')).to.equal(null);
      expect(await store().apiKeys.list('key-acct')).to.deep.equal([deploy, ci]);
    });

    it('revokes at once, by name and account only', async function () {
      const { apiKeys } = store();
      expect(await apiKeys.revoke('key-other', 'deploy', T0 + 10)).to.equal(false);
      expect(await apiKeys.findByHash('hash-deploy')).to.deep.equal(deploy);
      expect(await apiKeys.revoke('key-acct', 'deploy', T0 + 10)).to.equal(true);
      expect(await apiKeys.findByHash('hash-deploy')).to.equal(null);
      expect(await apiKeys.list('key-acct')).to.deep.equal([ci]);
      expect(await apiKeys.revoke('key-acct', 'deploy', T0 + 11)).to.equal(false);
      expect(await apiKeys.revoke('key-acct', 'never', T0 + 11)).to.equal(false);
      expect(await apiKeys.findByHash('hash-other-ci')).to.deep.equal(otherCi);
    });

    it('reuses a revoked name, again and again; the old secrets stay dead', async function () {
      const { apiKeys } = store();
      const names = (keys: Array<{ key_hash: string }>) => keys.map((k) => k.key_hash);
      const gen = (n: number) =>
        apiKey({ account_id: 'key-reuse', api_key_name: 'ci', key_hash: `hash-reuse-${n}`, created_at: T0 + n });
      await apiKeys.create(gen(0));
      for (const n of [1, 2]) {
        expect(await apiKeys.revoke('key-reuse', 'ci', T0 + 100 + n)).to.equal(true);
        await apiKeys.create(gen(n));
        expect(names(await apiKeys.list('key-reuse'))).to.deep.equal([`hash-reuse-${n}`]);
      }
      expect(await apiKeys.findByHash('hash-reuse-2')).to.deep.equal(gen(2));
      for (const n of [0, 1]) expect(await apiKeys.findByHash(`hash-reuse-${n}`)).to.equal(null);
      await expectConflict(apiKeys.create(gen(3)));
    });

    it("lets exactly one of two concurrent creates of a name win; the loser's hash finds nothing", async function () {
      const { apiKeys } = store();
      const racers = [1, 2].map((n) =>
        apiKey({ account_id: 'key-race', api_key_name: 'race', key_hash: `hash-race-${n}` }),
      );
      const winner = await expectOneWinner(racers.map((k) => () => apiKeys.create(k)));
      expect(await apiKeys.list('key-race')).to.deep.equal([racers[winner]]);
      expect(await apiKeys.findByHash(racers[winner]!.key_hash)).to.deep.equal(racers[winner]);
      expect(await apiKeys.findByHash(racers[1 - winner]!.key_hash)).to.equal(null);
    });

    it("keeps each key's scope through create, list, find and revoke", async function () {
      const { apiKeys } = store();
      const read = apiKey({
        account_id: 'key-scope',
        api_key_name: 'reader',
        key_hash: 'hash-scope-read',
        scope: 'read',
      });
      const op = apiKey({
        account_id: 'key-scope',
        api_key_name: 'ops',
        key_hash: 'hash-scope-op',
        scope: 'operator',
        created_at: T0 + 1,
      });
      for (const k of [read, op]) await apiKeys.create(k);
      expect(await apiKeys.list('key-scope')).to.deep.equal([read, op]);
      expect(await apiKeys.findByHash('hash-scope-read')).to.deep.equal(read);
      expect(await apiKeys.findByHash('hash-scope-op')).to.deep.equal(op);
      expect(await apiKeys.revoke('key-scope', 'ops', T0 + 5)).to.equal(true);
      await apiKeys.create({ ...op, key_hash: 'hash-scope-op-2', scope: 'full' });
      expect((await apiKeys.list('key-scope')).map((k) => k.scope)).to.deep.equal(['read', 'full']);
    });

    it('stores hostile values verbatim', async function () {
      const k = apiKey({ account_id: INJECTION, api_key_name: INJECTION, key_hash: INJECTION });
      await store().apiKeys.create(k);
      expect(await store().apiKeys.findByHash(INJECTION)).to.deep.equal(k);
      expect(await store().apiKeys.revoke(INJECTION, INJECTION, T0)).to.equal(true);
      expect(await store().apiKeys.findByHash(INJECTION)).to.equal(null);
    });
  });
}

export function revokedTokenCases(store: () => Store): void {
  describe('revoked tokens', function () {
    // Times near now: ClickHouse's TTL drops a revocation an hour after its expiry, on insert too.
    const T = Date.now();
    it('answers whether a token was revoked, until its expiry has passed', async function () {
      const { revokedTokens } = store();
      expect(await revokedTokens.isRevoked('jti:never', T)).to.equal(false);
      await revokedTokens.revoke({ token_id: 'jti:one', expires_at: T + 1000, revoked_at: T });
      expect(await revokedTokens.isRevoked('jti:one', T)).to.equal(true);
      expect(await revokedTokens.isRevoked('jti:one', T + 1000)).to.equal(true);
      expect(await revokedTokens.isRevoked('jti:one', T + 1001)).to.equal(false);
      expect(await revokedTokens.isRevoked('jti:other', T)).to.equal(false);
    });

    it('is idempotent, also for two revocations at once', async function () {
      const { revokedTokens } = store();
      const t = { token_id: 'sha256:abc', expires_at: T + 5000, revoked_at: T };
      await Promise.all([revokedTokens.revoke(t), revokedTokens.revoke({ ...t, revoked_at: T + 1 })]);
      await revokedTokens.revoke(t);
      expect(await revokedTokens.isRevoked('sha256:abc', T + 10)).to.equal(true);
    });

    it('keeps a live revocation when a later one lapses older ones, and stores hostile ids verbatim', async function () {
      const { revokedTokens } = store();
      await revokedTokens.revoke({ token_id: 'jti:old', expires_at: T + 10, revoked_at: T });
      await revokedTokens.revoke({ token_id: 'jti:live', expires_at: T + 100_000, revoked_at: T });
      await revokedTokens.revoke({ token_id: INJECTION, expires_at: T + 100_000, revoked_at: T + 50 });
      expect(await revokedTokens.isRevoked('jti:live', T + 60)).to.equal(true);
      expect(await revokedTokens.isRevoked(INJECTION, T + 60)).to.equal(true);
      expect(await revokedTokens.isRevoked('jti:old', T + 60)).to.equal(false);
    });
  });
}

export function signingKeyCases(store: () => Store): void {
  describe('signing keys', function () {
    it('lists oldest first and keeps the first keys of a kid', async function () {
      const { signingKeys } = store();
      expect(await signingKeys.list()).to.deep.equal([]);
      const older = signingKey({ kid: 'kid-b', created_at: T0 });
      const newer = signingKey({ kid: 'kid-a', created_at: T0 + 1 });
      await signingKeys.create(newer);
      await signingKeys.create(older);
      await signingKeys.create({ ...older, private_jwk: '{"other":true}', created_at: T0 + 5 });
      await Promise.all([
        signingKeys.create(signingKey({ kid: 'kid-c', created_at: T0 + 2 })),
        signingKeys.create(signingKey({ kid: 'kid-c', created_at: T0 + 2 })),
      ]);
      expect(await signingKeys.list()).to.deep.equal([older, newer, signingKey({ kid: 'kid-c', created_at: T0 + 2 })]);
    });
  });
}
