// Members and invitations on both engines (issue 45): a project's creator is its owner, roles
// change, a project keeps at least one owner, an invitation is taken once and never after it
// expires, and deleting a project or an account takes its memberships along.
import { expect } from 'chai';
import type { InvitationRecord, MemberRecord, Store } from '../src/index.js';
import { backends, migratedStore } from './store-backends.js';
import { T0, project } from './store-fixtures.js';

const DAY = 86_400_000;

function member(over: Partial<MemberRecord> & { project_id: string; account_id: string }): MemberRecord {
  return { role: 'viewer', created_at: T0 + 10, updated_at: T0 + 10, ...over };
}

function invitation(over: Partial<InvitationRecord> & { invitation_id: string }): InvitationRecord {
  return {
    project_id: 'pm-1',
    email: 'new@example.com',
    role: 'editor',
    token_hash: `hash-${over.invitation_id}`,
    invited_by: 'acct-owner',
    created_at: T0,
    expires_at: T0 + 7 * DAY,
    ...over,
  };
}

for (const backend of backends) {
  describe(`Store contract, members and invitations: ${backend.name}`, function () {
    let store: Store;
    migratedStore(backend, (s) => (store = s));

    before(async function () {
      await store.projects.create(project({ project_id: 'pm-1', account_id: 'acct-owner', project: 'members/one' }));
      await store.projects.create(
        project({ project_id: 'pm-2', account_id: 'acct-owner', project: 'members/two', created_at: T0 + 1 }),
      );
    });

    it("makes a project's creator its owner", async function () {
      expect(await store.members.get('pm-1', 'acct-owner')).to.deep.equal({
        project_id: 'pm-1',
        account_id: 'acct-owner',
        role: 'owner',
        created_at: T0,
        updated_at: T0,
      });
      expect(await store.members.get('pm-1', 'acct-nobody')).to.equal(null);
      expect((await store.members.ofAccount('acct-owner')).map((m) => m.project_id)).to.deep.equal(['pm-1', 'pm-2']);
    });

    it('adds members and lists them owners first, then by role and age', async function () {
      await store.members.put(
        member({ project_id: 'pm-1', account_id: 'acct-view', role: 'viewer', created_at: T0 + 1 }),
      );
      await store.members.put(
        member({ project_id: 'pm-1', account_id: 'acct-edit', role: 'editor', created_at: T0 + 2 }),
      );
      await store.members.put(
        member({ project_id: 'pm-1', account_id: 'acct-admin', role: 'admin', created_at: T0 + 3 }),
      );
      const list = await store.members.list('pm-1');
      expect(list.map((m) => [m.account_id, m.role])).to.deep.equal([
        ['acct-owner', 'owner'],
        ['acct-admin', 'admin'],
        ['acct-edit', 'editor'],
        ['acct-view', 'viewer'],
      ]);
      expect(await store.members.list('pm-2')).to.have.length(1);
    });

    it('changes a role, removes a member, and never leaves a project without an owner', async function () {
      const { members } = store;
      expect(await members.change('pm-1', 'acct-view', 'editor', T0 + 20)).to.equal('changed');
      expect(await members.get('pm-1', 'acct-view')).to.include({ role: 'editor', updated_at: T0 + 20 });
      expect(await members.change('pm-1', 'acct-404', 'editor', T0 + 21)).to.equal('not_member');
      expect(await members.change('pm-1', 'acct-owner', 'admin', T0 + 22)).to.equal('last_owner');
      expect(await members.change('pm-1', 'acct-owner', null, T0 + 22)).to.equal('last_owner');
      expect(await members.get('pm-1', 'acct-owner')).to.include({ role: 'owner' });
      // A second owner first, then the first may step down or leave.
      expect(await members.change('pm-1', 'acct-admin', 'owner', T0 + 23)).to.equal('changed');
      expect(await members.change('pm-1', 'acct-owner', 'admin', T0 + 24)).to.equal('changed');
      expect(await members.change('pm-1', 'acct-admin', null, T0 + 25)).to.equal('last_owner');
      expect(await members.change('pm-1', 'acct-edit', null, T0 + 26)).to.equal('changed');
      expect(await members.get('pm-1', 'acct-edit')).to.equal(null);
      expect(await members.ofAccount('acct-edit')).to.deep.equal([]);
      // A removed member may be added again.
      await members.put(member({ project_id: 'pm-1', account_id: 'acct-edit', role: 'viewer', created_at: T0 + 27 }));
      expect(await members.get('pm-1', 'acct-edit')).to.include({ role: 'viewer' });
    });

    it('lists live invitations, revokes one, and lets a token be taken once before it expires', async function () {
      const { members } = store;
      await members.invite(invitation({ invitation_id: 'inv-a', created_at: T0 }));
      await members.invite(invitation({ invitation_id: 'inv-b', created_at: T0 + 1, role: 'viewer' }));
      await members.invite(invitation({ invitation_id: 'inv-c', created_at: T0 + 2, expires_at: T0 + 5 }));
      await members.invite(invitation({ invitation_id: 'inv-other', project_id: 'pm-2', created_at: T0 + 3 }));
      expect((await members.invitations('pm-1', T0 + 10)).map((i) => i.invitation_id)).to.deep.equal([
        'inv-b',
        'inv-a',
      ]);
      expect((await members.invitations('pm-1', T0 + 1)).map((i) => i.invitation_id)).to.deep.equal([
        'inv-c',
        'inv-b',
        'inv-a',
      ]);
      expect(await members.revokeInvitation('pm-2', 'inv-a')).to.equal(false);
      expect(await members.revokeInvitation('pm-1', 'inv-b')).to.equal(true);
      expect(await members.takeInvitation('hash-inv-b', T0 + 10)).to.equal(null);
      expect(await members.takeInvitation('hash-inv-c', T0 + 10)).to.equal(null);
      expect(await members.takeInvitation('hash-inv-a', T0 + 10)).to.deep.equal(invitation({ invitation_id: 'inv-a' }));
      expect(await members.takeInvitation('hash-inv-a', T0 + 11)).to.equal(null);
      expect((await members.invitations('pm-1', T0 + 10)).map((i) => i.invitation_id)).to.deep.equal([]);
    });

    it("goes with its project, and an account's memberships with the account", async function () {
      await store.members.put(member({ project_id: 'pm-2', account_id: 'acct-view' }));
      await store.erasure.deleteProject('pm-1', 'no-job');
      expect(await store.members.list('pm-1')).to.deep.equal([]);
      expect(await store.members.invitations('pm-1', T0)).to.deep.equal([]);
      expect(await store.members.get('pm-2', 'acct-view')).to.include({ role: 'viewer' });
      await store.erasure.deleteAccount('acct-view', 'no-job');
      expect(await store.members.ofAccount('acct-view')).to.deep.equal([]);
      expect(await store.members.get('pm-2', 'acct-owner')).to.include({ role: 'owner' });
      expect((await store.members.invitations('pm-2', T0)).map((i) => i.invitation_id)).to.deep.equal(['inv-other']);
    });
  });
}
