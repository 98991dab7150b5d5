// The gateway's account and project cache (record-cache.ts) on every backend. "This process" writes
// through the announcing store, as every service of a Spoor process does (libs/runtime adapters);
// "another process" writes through the engine's store directly, which announces nothing here.
import { expect } from 'chai';
import {
  announcingStore,
  cachingStore,
  StoreChangeFeed,
  type CredentialMark,
  type StoreChange,
  type Store,
} from '../src/index.js';
import { backends, migratedStore } from './store-backends.js';
import { account, apiKey, project } from './store-fixtures.js';

const TTL_MS = 2_000;

for (const backend of backends) {
  describe(`record cache: ${backend.name}`, function () {
    this.timeout(60_000);
    let engine: Store;
    let here: Store;
    let cached: Store;
    let now: number;
    // Each test its own account and project in the one store the suite opens.
    let n = 0;
    let ids: { account: string; project: string; origin: string; name: string };

    migratedStore(backend, (s) => (engine = s));

    beforeEach(async () => {
      n++;
      ids = { account: `acct-${n}`, project: `p-${n}`, origin: `https://site${n}.example`, name: `site${n}/web` };
      const feed = new StoreChangeFeed();
      here = announcingStore(engine, feed);
      now = 1_000;
      cached = cachingStore(here, feed, { ttlMs: TTL_MS, now: () => now });
      await engine.accounts.create(account({ account_id: ids.account }));
      await engine.projects.create(
        project({ project_id: ids.project, origin: ids.origin, project: ids.name, account_id: ids.account }),
      );
    });

    it("answers from memory within its lifetime: another process' change shows once it lapsed", async () => {
      expect((await cached.projects.find(ids.origin, ids.name))!.verified).to.equal(false);
      expect((await cached.projects.get(ids.project))!.verified).to.equal(false);
      await engine.projects.setVerified(ids.project, true);
      now += TTL_MS - 1;
      expect((await cached.projects.find(ids.origin, ids.name))!.verified).to.equal(false);
      expect((await cached.projects.get(ids.project))!.verified).to.equal(false);
      now += 1;
      expect((await cached.projects.find(ids.origin, ids.name))!.verified).to.equal(true);
      expect((await cached.projects.get(ids.project))!.verified).to.equal(true);
    });

    it("shows another process' deletion of a project or an account once the lifetime lapsed", async () => {
      expect(await cached.projects.find(ids.origin, ids.name)).to.not.equal(null);
      expect(await cached.accounts.get(ids.account)).to.not.equal(null);
      await engine.erasure.deleteProject(ids.project, 'no-job');
      await engine.erasure.deleteAccount(ids.account, 'no-job');
      now += TTL_MS;
      expect(await cached.projects.find(ids.origin, ids.name)).to.equal(null);
      expect(await cached.accounts.get(ids.account)).to.equal(null);
    });

    it("forgets at once what this process' writes change: verification, settings, deletions", async () => {
      await cached.projects.find(ids.origin, ids.name);
      await here.projects.setVerified(ids.project, true);
      expect((await cached.projects.find(ids.origin, ids.name))!.verified).to.equal(true);
      await here.projects.updateSettings(ids.project, { retention_days: 30 });
      expect((await cached.projects.get(ids.project))!.retention_days).to.equal(30);

      expect(await cached.accounts.get(ids.account)).to.not.equal(null);
      expect(await cached.accounts.findBySubject('spoor', ids.account)).to.not.equal(null);
      await here.erasure.deleteProject(ids.project, 'no-job');
      expect(await cached.projects.find(ids.origin, ids.name)).to.equal(null);
      expect(await cached.projects.get(ids.project)).to.equal(null);
      await here.erasure.deleteAccount(ids.account, 'no-job');
      expect(await cached.accounts.get(ids.account)).to.equal(null);
      expect(await cached.accounts.findBySubject('spoor', ids.account)).to.equal(null);
    });

    it('forgets at once what is written through it, even over a store that announces nothing', async () => {
      const silent = cachingStore(engine, new StoreChangeFeed(), { ttlMs: TTL_MS, now: () => now });
      await silent.projects.get(ids.project);
      await silent.projects.setVerified(ids.project, true);
      expect((await silent.projects.get(ids.project))!.verified).to.equal(true);
    });

    it('announces each write once, however often the store is wrapped on one feed', async () => {
      const feed = new StoreChangeFeed();
      const heard: unknown[] = [];
      feed.on((change) => heard.push(change));
      const twice = cachingStore(announcingStore(announcingStore(engine, feed), feed), feed, { ttlMs: TTL_MS });
      await twice.projects.setVerified(ids.project, true);
      expect(heard).to.deep.equal([{ projects: true }]);
    });

    it('keeps no absence: a project or account created elsewhere is found at its first request', async () => {
      const later = {
        project: `${ids.project}-later`,
        origin: `https://later${n}.example`,
        account: `${ids.account}-later`,
      };
      expect(await cached.projects.find(later.origin, 'later/web')).to.equal(null);
      expect(await cached.accounts.get(later.account)).to.equal(null);
      await engine.projects.create(project({ project_id: later.project, origin: later.origin, project: 'later/web' }));
      await engine.accounts.create(account({ account_id: later.account }));
      expect((await cached.projects.find(later.origin, 'later/web'))!.project_id).to.equal(later.project);
      expect((await cached.accounts.get(later.account))!.account_id).to.equal(later.account);
    });

    it('does not keep a read that a change overtook (it may predate a deletion)', async () => {
      const feed = new StoreChangeFeed();
      let release!: () => void;
      const gate = new Promise<void>((resolve) => (release = resolve));
      // A read that the engine answers before the deletion and that returns after it was announced.
      const slow = new Proxy(engine, {
        get(target, prop) {
          if (prop !== 'projects') return Reflect.get(target, prop, target) as unknown;
          return {
            ...target.projects,
            get: async (id: string) => {
              const found = await target.projects.get(id);
              await gate;
              return found;
            },
          };
        },
      });
      const racing = cachingStore(slow, feed, { ttlMs: TTL_MS, now: () => now });
      const read = racing.projects.get(ids.project);
      await announcingStore(engine, feed).erasure.deleteProject(ids.project, 'no-job');
      release();
      expect(await read).to.not.equal(null);
      expect(await racing.projects.get(ids.project)).to.equal(null);
    });

    it('hands out copies: a caller that edits its record edits only its own', async () => {
      const first = (await cached.projects.get(ids.project))!;
      first.verified = true;
      expect((await cached.projects.get(ids.project))!.verified).to.equal(false);
    });

    describe('with credentials (a store this process holds alone)', () => {
      let keyed: Store;
      let keyHash: string;
      const token = () => `jti:${ids.account}`;
      // Wall-clock times for the revocation (ClickHouse's TTL drops rows of tokens long expired);
      // `now` is the cache's own clock.
      const wall = Date.now();
      const revocation = () => ({ token_id: token(), expires_at: wall + 3_600_000, revoked_at: wall });

      beforeEach(async () => {
        const feed = new StoreChangeFeed();
        here = announcingStore(engine, feed);
        keyed = cachingStore(here, feed, { ttlMs: TTL_MS, now: () => now, credentials: true });
        keyHash = `hash-${n}`;
        await engine.apiKeys.create(apiKey({ account_id: ids.account, api_key_name: 'ci', key_hash: keyHash }));
      });

      it("refuses a key or a token at once when this process revokes it, an account's keys when it deletes the account", async () => {
        expect(await keyed.apiKeys.findByHash(keyHash)).to.not.equal(null);
        expect(await keyed.revokedTokens.isRevoked(token(), wall)).to.equal(false);
        expect(await here.apiKeys.revoke(ids.account, 'ci', wall)).to.equal(true);
        expect(await keyed.apiKeys.findByHash(keyHash)).to.equal(null);
        await here.revokedTokens.revoke(revocation());
        expect(await keyed.revokedTokens.isRevoked(token(), wall)).to.equal(true);

        await engine.apiKeys.create(apiKey({ account_id: ids.account, api_key_name: 'ci2', key_hash: `${keyHash}-2` }));
        expect(await keyed.apiKeys.findByHash(`${keyHash}-2`)).to.not.equal(null);
        await here.erasure.deleteAccount(ids.account, 'no-job');
        expect(await keyed.apiKeys.findByHash(`${keyHash}-2`)).to.equal(null);
      });

      it('answers both from memory within its lifetime (only a write unheard here, as no other process writes such a store, would show late)', async () => {
        expect(await keyed.apiKeys.findByHash(keyHash)).to.not.equal(null);
        expect(await keyed.revokedTokens.isRevoked(token(), wall)).to.equal(false);
        await engine.apiKeys.revoke(ids.account, 'ci', wall);
        await engine.revokedTokens.revoke(revocation());
        now += TTL_MS - 1;
        expect(await keyed.apiKeys.findByHash(keyHash)).to.not.equal(null);
        expect(await keyed.revokedTokens.isRevoked(token(), wall)).to.equal(false);
        now += 1;
        expect(await keyed.apiKeys.findByHash(keyHash)).to.equal(null);
        expect(await keyed.revokedTokens.isRevoked(token(), wall)).to.equal(true);
      });

      it("with a credential mark, another process' revocations show at once; an unreadable mark sends reads to the store", async () => {
        // The mark as a shared KV would hold it (libs/runtime: a Redis key), here a variable both
        // processes see; `down` is the fault of a KV that cannot be reached.
        let value: string | null = null;
        let down = false;
        let moves = 0;
        const mark: CredentialMark = {
          read: async () => {
            if (down) throw new Error('KV unreachable');
            return value;
          },
          move: async () => {
            value = `m${++moves}`;
          },
        };
        const feed = new StoreChangeFeed();
        const marked = cachingStore(announcingStore(engine, feed), feed, {
          ttlMs: TTL_MS,
          now: () => now,
          credentials: mark,
        });
        // Another gateway as libs/runtime assembles it: its store announces and marks, and its
        // cache wraps that store again on the same feed, which must not announce a write twice.
        const theirs = new StoreChangeFeed();
        const heard: StoreChange[] = [];
        theirs.on((change) => heard.push(change));
        const failed = (err: unknown) => {
          throw err;
        };
        const elsewhere = cachingStore(announcingStore(engine, theirs, { mark, failed }), theirs, {
          ttlMs: TTL_MS,
          now: () => now,
          credentials: mark,
        });
        expect(await marked.apiKeys.findByHash(keyHash)).to.not.equal(null);
        expect(await marked.revokedTokens.isRevoked(token(), wall)).to.equal(false);
        // Unheard here and without the mark: answered from memory, as a process of old would.
        await engine.apiKeys.create(apiKey({ account_id: ids.account, api_key_name: 'ci2', key_hash: `${keyHash}-2` }));
        expect(await marked.apiKeys.findByHash(`${keyHash}-2`)).to.not.equal(null);
        await engine.apiKeys.revoke(ids.account, 'ci2', wall);
        expect(await marked.apiKeys.findByHash(`${keyHash}-2`), 'a write that moved no mark').to.not.equal(null);

        expect(await elsewhere.apiKeys.revoke(ids.account, 'ci', wall)).to.equal(true);
        expect(moves).to.equal(1);
        expect(await marked.apiKeys.findByHash(keyHash)).to.equal(null);
        expect(await marked.apiKeys.findByHash(`${keyHash}-2`)).to.equal(null);
        await elsewhere.revokedTokens.revoke(revocation());
        expect(await marked.revokedTokens.isRevoked(token(), wall)).to.equal(true);

        await engine.apiKeys.create(apiKey({ account_id: ids.account, api_key_name: 'ci3', key_hash: `${keyHash}-3` }));
        expect(await marked.apiKeys.findByHash(`${keyHash}-3`)).to.not.equal(null);
        await elsewhere.erasure.deleteAccount(ids.account, 'no-job');
        expect(moves).to.equal(3);
        expect(heard, 'each write announced once where it was made').to.have.length(3);
        expect(await marked.apiKeys.findByHash(`${keyHash}-3`), 'an account deletion elsewhere').to.equal(null);

        await engine.apiKeys.create(apiKey({ account_id: ids.account, api_key_name: 'ci4', key_hash: `${keyHash}-4` }));
        expect(await marked.apiKeys.findByHash(`${keyHash}-4`)).to.not.equal(null);
        down = true;
        await engine.apiKeys.revoke(ids.account, 'ci4', wall);
        expect(
          await marked.apiKeys.findByHash(`${keyHash}-4`),
          'read from the store while the mark is unreadable',
        ).to.equal(null);
      });

      it("without credentials reads keys and revocations every time, so another process' revocation shows at once", async () => {
        expect(await cached.apiKeys.findByHash(keyHash)).to.not.equal(null);
        expect(await cached.revokedTokens.isRevoked(token(), wall)).to.equal(false);
        await engine.apiKeys.revoke(ids.account, 'ci', wall);
        await engine.revokedTokens.revoke(revocation());
        expect(await cached.apiKeys.findByHash(keyHash)).to.equal(null);
        expect(await cached.revokedTokens.isRevoked(token(), wall)).to.equal(true);
      });
    });

    it('with a lifetime of 0 is the store itself', () => {
      expect(cachingStore(here, new StoreChangeFeed(), { ttlMs: 0 })).to.equal(here);
    });
  });
}
