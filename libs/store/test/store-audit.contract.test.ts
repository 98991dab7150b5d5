// The audit trail on both engines (issue 45, item 7): entries listed newest first and paged by
// (at, entry_id), filtered by action or category, actor and window; an entry appended twice is
// stored once; `expire` takes a project's entries before a cut and no other project's; deleting a
// project takes its entries along.
import { expect } from 'chai';
import type { AuditRecord, Store } from '../src/index.js';
import { backends, migratedStore } from './store-backends.js';
import { T0, project } from './store-fixtures.js';

function entry(over: Partial<AuditRecord> & { entry_id: string; made_at: number }): AuditRecord {
  return {
    project_id: 'pa-1',
    actor_id: 'acct-owner',
    actor_email: 'Owner@Example.com',
    via: 'token',
    api_key_name: null,
    action: 'rule.created',
    target_kind: 'rule',
    target_id: 'r1',
    target_name: null,
    changes: {},
    ...over,
  };
}

const ids = (rows: AuditRecord[]) => rows.map((r) => r.entry_id);

for (const backend of backends) {
  describe(`Store contract, audit trail: ${backend.name}`, function () {
    let store: Store;
    migratedStore(backend, (s) => (store = s));

    before(async function () {
      await store.projects.create(project({ project_id: 'pa-1', account_id: 'acct-owner', project: 'audit/one' }));
      await store.projects.create(project({ project_id: 'pa-2', account_id: 'acct-owner', project: 'audit/two' }));
      await store.audit.append([
        entry({
          entry_id: 'e1',
          made_at: T0 + 1,
          action: 'member.role_changed',
          target_kind: 'member',
          target_id: 'acct-view',
          target_name: 'view@example.com',
          changes: { role: { before: 'viewer', after: 'editor' } },
        }),
        entry({ entry_id: 'e2', made_at: T0 + 2, action: 'member.removed', actor_id: 'acct-admin', actor_email: null }),
        entry({
          entry_id: 'e3',
          made_at: T0 + 3,
          action: 'webhook.created',
          via: 'api_key',
          api_key_name: 'ci',
          changes: { url: { before: null, after: 'https://hooks.example' } },
        }),
        entry({ entry_id: 'e4b', made_at: T0 + 3 }),
        entry({ entry_id: 'e5', made_at: T0 + 5 }),
        entry({ entry_id: 'x1', made_at: T0 + 4, project_id: 'pa-2' }),
      ]);
    });

    it('lists a project newest first, then by entry_id descending, with every field as written', async function () {
      const rows = await store.audit.list('pa-1', { limit: 10 });
      expect(ids(rows)).to.deep.equal(['e5', 'e4b', 'e3', 'e2', 'e1']);
      expect(rows[4]).to.deep.equal(
        entry({
          entry_id: 'e1',
          made_at: T0 + 1,
          action: 'member.role_changed',
          target_kind: 'member',
          target_id: 'acct-view',
          target_name: 'view@example.com',
          changes: { role: { before: 'viewer', after: 'editor' } },
        }),
      );
      expect(rows[2]).to.include({ via: 'api_key', api_key_name: 'ci' });
      expect(rows[3]).to.include({ actor_email: null });
    });

    it('stores an entry appended twice once', async function () {
      await store.audit.append([entry({ entry_id: 'e5', made_at: T0 + 5 })]);
      expect(ids(await store.audit.list('pa-1', { limit: 10 }))).to.deep.equal(['e5', 'e4b', 'e3', 'e2', 'e1']);
    });

    it('pages after a cursor, ties on `at` broken by entry_id', async function () {
      const first = await store.audit.list('pa-1', { limit: 2 });
      expect(ids(first)).to.deep.equal(['e5', 'e4b']);
      const last = first[1]!;
      const second = await store.audit.list('pa-1', {
        limit: 2,
        after: { made_at: last.made_at, entry_id: last.entry_id },
      });
      expect(ids(second)).to.deep.equal(['e3', 'e2']);
      const third = await store.audit.list('pa-1', { limit: 2, after: { made_at: T0 + 2, entry_id: 'e2' } });
      expect(ids(third)).to.deep.equal(['e1']);
    });

    it('filters by action, category, actor (id or email, any case) and window', async function () {
      expect(ids(await store.audit.list('pa-1', { limit: 10, action: 'member' }))).to.deep.equal(['e2', 'e1']);
      expect(ids(await store.audit.list('pa-1', { limit: 10, action: 'member.removed' }))).to.deep.equal(['e2']);
      expect(ids(await store.audit.list('pa-1', { limit: 10, action: 'mem' }))).to.deep.equal([]);
      expect(ids(await store.audit.list('pa-1', { limit: 10, actor: 'acct-admin' }))).to.deep.equal(['e2']);
      expect(ids(await store.audit.list('pa-1', { limit: 10, actor: 'owner@example.COM' }))).to.deep.equal([
        'e5',
        'e4b',
        'e3',
        'e1',
      ]);
      expect(
        ids(await store.audit.list('pa-1', { limit: 10, window_start: T0 + 2, window_end: T0 + 5 })),
      ).to.deep.equal(['e4b', 'e3', 'e2']);
    });

    it("expires a project's entries before a cut, and no other project's", async function () {
      await store.audit.expire('pa-1', T0 + 3);
      expect(ids(await store.audit.list('pa-1', { limit: 10 }))).to.deep.equal(['e5', 'e4b', 'e3']);
      expect(ids(await store.audit.list('pa-2', { limit: 10 }))).to.deep.equal(['x1']);
    });

    it('deletes the entries with the project', async function () {
      await store.erasure.deleteProject('pa-2', '');
      expect(await store.audit.list('pa-2', { limit: 10 })).to.deep.equal([]);
      expect(ids(await store.audit.list('pa-1', { limit: 10 }))).to.deep.equal(['e5', 'e4b', 'e3']);
    });
  });
}
