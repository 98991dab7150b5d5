// Issue 45, items 1, 5 and 6, end to end: invitations by mail (a real SMTP server), accepted once
// by any signed-in account, revocable; what an admin may do to members and what only an owner
// may; a project that never loses its last owner; API keys acting with their account's role, a
// `read` key staying read-only; and the deletion of an account that owns a project with others.
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { requireEngine, startSmtpCapture, type SmtpCapture } from '@spoor/testkit';
import { ApiClient, signUp } from '../support/api-client.js';
import { MODES } from '../support/engine-env.js';
import { startSpoor, waitFor, type Harness } from '../support/spoor-harness.js';

for (const mode of MODES) {
  describe(`Members, roles and invitations (issue 45): ${mode}`, function () {
    this.timeout(180_000);
    let spoor: Harness;
    let smtp: SmtpCapture;
    let port = 5300;
    const newScope = () => ({ origin: `http://localhost:${port++}`, project: `team/web-${port}` });
    const email = (what: string) => `${what}-${randomUUID().slice(0, 8)}@example.com`;
    const idOf = async (c: ApiClient) => (await c.get('/v1/users/account')).body.account_id as string;

    /** The token of the invitation mailed to `address` (quoted-printable soft breaks undone). */
    async function mailedToken(address: string): Promise<string> {
      const mail = await waitFor(
        async () => smtp.received.find((m) => m.rcptTo.includes(address)),
        (m) => m !== undefined,
        10_000,
        `the invitation mail to ${address}`,
      );
      const body = mail!.raw.replace(/=\r?\n/g, '').replace(/=3D/g, '=');
      return /\/invitations\/accept#token=([A-Za-z0-9_-]+)/.exec(body)![1]!;
    }

    /** A project of a new owner, with a member of each role asked for (invited by mail, accepted). */
    async function team(...roles: Array<'admin' | 'editor' | 'viewer'>) {
      const owner = await signUp(spoor.url, email('owner'));
      const scope = newScope();
      expect((await owner.post('/v1/users/projects', scope)).status).to.equal(200);
      const members: ApiClient[] = [];
      for (const role of roles) {
        const address = email(role);
        const invited = await owner.post('/v1/projects/invitations', { ...scope, email: address, role });
        expect(invited.status, invited.text).to.equal(200);
        const member = await signUp(spoor.url, address);
        expect((await member.post('/v1/invitations/accept', { token: await mailedToken(address) })).status).to.equal(
          200,
        );
        members.push(member);
      }
      return { owner, scope, members };
    }

    before(async function () {
      smtp = await startSmtpCapture();
      const started = await startSpoor(mode, {
        SPOOR_SMTP_URL: `smtp://127.0.0.1:${smtp.port}`,
        SPOOR_PUBLIC_URL: 'https://spoor.example',
        SPOOR_RATE_SIGNUP_IP: '0',
      });
      requireEngine(this, started ? 'ok' : null, `engines for ${mode} mode`);
      spoor = started!;
    });

    after(async () => {
      await spoor?.stop();
      await smtp?.close();
    });

    it('mails an invitation with a link to the dashboard; any signed-in account accepts it, once', async () => {
      const owner = await signUp(spoor.url, email('owner'));
      const scope = newScope();
      expect((await owner.post('/v1/users/projects', scope)).status).to.equal(200);
      const address = email('guest');
      const invited = await owner.post('/v1/projects/invitations', {
        ...scope,
        email: address.toUpperCase(),
        role: 'editor',
      });
      expect(invited.status, invited.text).to.equal(200);
      expect(invited.body).to.include({ email: address, role: 'editor', mailed: true, link: null });
      expect(invited.body.expires_at - invited.body.created_at).to.equal(7 * 86_400_000);
      const token = await mailedToken(address);
      const mail = smtp.received.find((m) => m.rcptTo.includes(address))!;
      expect(mail.raw).to.include('https://spoor.example/invitations/accept#token=');
      expect(mail.raw).to.not.include(invited.body.invitation_id);
      const listed = await owner.get('/v1/projects/invitations', scope);
      expect(listed.body.invitations.map((i: { email: string }) => i.email)).to.deep.equal([address]);
      expect(JSON.stringify(listed.body)).to.not.include(token);

      // Another account than the invited address's may accept (docs/security.md, Invitations).
      const someone = await signUp(spoor.url, email('someone'));
      expect((await someone.get('/v1/sessions', scope)).status).to.equal(404);
      const accepted = await someone.post('/v1/invitations/accept', { token });
      expect(accepted.status, accepted.text).to.equal(200);
      expect(accepted.body).to.deep.equal({ ...scope, role: 'editor' });
      expect((await someone.get('/v1/sessions', scope)).status).to.equal(200);
      const projects = (await someone.get('/v1/users/projects')).body.projects;
      expect(projects.map((p: { project: string; role: string }) => [p.project, p.role])).to.deep.equal([
        [scope.project, 'editor'],
      ]);

      const again = await (await signUp(spoor.url)).post('/v1/invitations/accept', { token });
      expect(again.status).to.equal(404);
      expect(again.body.detail).to.match(/unknown, expired, revoked or already used/);
      expect((await owner.get('/v1/projects/invitations', scope)).body.invitations).to.deep.equal([]);
    });

    it('revokes an invitation: its link stops working; an admin cannot invite an admin', async () => {
      const { owner, scope, members } = await team('admin');
      const [admin] = members as [ApiClient];
      const refused = await admin.post('/v1/projects/invitations', { ...scope, email: email('x'), role: 'admin' });
      expect(refused.status).to.equal(403);
      expect(refused.body.detail).to.equal('This needs the owner role on the project; yours is admin');
      const address = email('revoked');
      const invited = await admin.post('/v1/projects/invitations', { ...scope, email: address, role: 'viewer' });
      expect(invited.status, invited.text).to.equal(200);
      const token = await mailedToken(address);
      const revoked = await owner.delete(`/v1/projects/invitations/${invited.body.invitation_id}`, scope);
      expect(revoked.status, revoked.text).to.equal(200);
      expect((await (await signUp(spoor.url, address)).post('/v1/invitations/accept', { token })).status).to.equal(404);
      const member = await owner.post('/v1/projects/invitations', {
        ...scope,
        email: (await admin.get('/v1/users/account')).body.email,
        role: 'viewer',
      });
      expect(member.status).to.equal(409);
    });

    it('lets an admin manage members below admin only; an owner manages everyone', async () => {
      const { owner, scope, members } = await team('admin', 'admin', 'editor');
      const [admin, otherAdmin, editor] = members as [ApiClient, ApiClient, ApiClient];
      const [adminId, otherId, editorId] = await Promise.all([idOf(admin), idOf(otherAdmin), idOf(editor)]);
      expect(
        (await admin.call('PATCH', `/v1/projects/members/${editorId}`, scope, { role: 'viewer' })).body,
      ).to.include({
        role: 'viewer',
      });
      expect((await admin.call('PATCH', `/v1/projects/members/${editorId}`, scope, { role: 'admin' })).status).to.equal(
        403,
      );
      expect((await admin.call('PATCH', `/v1/projects/members/${otherId}`, scope, { role: 'viewer' })).status).to.equal(
        403,
      );
      expect((await admin.delete(`/v1/projects/members/${otherId}`, scope)).status).to.equal(403);
      expect((await owner.call('PATCH', `/v1/projects/members/${otherId}`, scope, { role: 'editor' })).status).to.equal(
        200,
      );
      expect((await admin.delete(`/v1/projects/members/${otherId}`, scope)).status).to.equal(200);
      expect((await otherAdmin.get('/v1/sessions', scope)).status).to.equal(404);
      const listed = (await editor.get('/v1/projects/members', scope)).body.members;
      expect(listed.map((m: { account_id: string; role: string }) => [m.account_id, m.role])).to.deep.equal([
        [await idOf(owner), 'owner'],
        [adminId, 'admin'],
        [editorId, 'viewer'],
      ]);
    });

    it('lets a viewer export only while granted; the grant goes with the membership and is audited', async () => {
      const { owner, scope, members } = await team('viewer', 'editor');
      const [viewer, editor] = members as [ApiClient, ApiClient];
      const [viewerId, editorId] = await Promise.all([idOf(viewer), idOf(editor)]);
      const exportSessions = (c: ApiClient) => c.post('/v1/exports', { ...scope, what: 'sessions', format: 'ndjson' });
      const exportsOf = async () =>
        Object.fromEntries(
          (await owner.get('/v1/projects/members', scope)).body.members.map(
            (m: { account_id: string; exports: boolean }) => [m.account_id, m.exports],
          ),
        );
      expect(await exportsOf()).to.deep.equal({ [await idOf(owner)]: true, [viewerId]: false, [editorId]: true });
      const refused = await exportSessions(viewer);
      expect(refused.status).to.equal(403);
      expect(refused.body.detail).to.equal('This needs the editor role on the project; yours is viewer');
      // Nothing to change is a 422; a grant is a manager's: an editor cannot give it.
      const empty = await owner.call('PATCH', `/v1/projects/members/${viewerId}`, scope, {});
      expect(empty.status).to.equal(422);
      expect(empty.body.detail[0].msg).to.match(/Give role, exports or both/);
      expect(
        (await editor.call('PATCH', `/v1/projects/members/${viewerId}`, scope, { exports: true })).status,
      ).to.equal(403);
      const granted = await owner.call('PATCH', `/v1/projects/members/${viewerId}`, scope, { exports: true });
      expect(granted.body).to.include({ role: 'viewer', exports: true });
      const queued = await exportSessions(viewer);
      expect(queued.status, queued.text).to.equal(200);
      const job = await waitFor(
        async () => (await viewer.get(`/v1/jobs/${queued.body.job_id}`)).body,
        (j) => j.status === 'succeeded' || j.status === 'failed',
        30_000,
        'the viewer’s export',
      );
      expect(job.status).to.equal('succeeded');
      expect((await viewer.get(`/v1/exports/${queued.body.job_id}/file`)).status).to.equal(200);
      // Withdrawn: no new export, and the file made under the grant is no longer theirs to fetch.
      expect(
        (await owner.call('PATCH', `/v1/projects/members/${viewerId}`, scope, { exports: false })).body,
      ).to.include({ exports: false });
      expect((await exportSessions(viewer)).status).to.equal(403);
      expect((await viewer.get(`/v1/exports/${queued.body.job_id}/file`)).status).to.equal(403);
      // An editor always exports: withdrawing changes nothing it can do.
      expect(
        (await owner.call('PATCH', `/v1/projects/members/${editorId}`, scope, { exports: false })).body,
      ).to.include({ exports: true });
      // Removed and invited again, the viewer starts without the grant.
      await owner.call('PATCH', `/v1/projects/members/${viewerId}`, scope, { exports: true });
      expect((await owner.delete(`/v1/projects/members/${viewerId}`, scope)).status).to.equal(200);
      const again = await owner.post('/v1/projects/invitations', {
        ...scope,
        email: (await viewer.get('/v1/users/account')).body.email,
        role: 'viewer',
      });
      expect(again.status, again.text).to.equal(200);
      const address = (await viewer.get('/v1/users/account')).body.email as string;
      const second = await waitFor(
        async () => smtp.received.filter((m) => m.rcptTo.includes(address)),
        (mails) => mails.length === 2,
        10_000,
        'the second invitation mail',
      );
      const raw = second[1]!.raw.replace(/=\r?\n/g, '').replace(/=3D/g, '=');
      const token = /\/invitations\/accept#token=([A-Za-z0-9_-]+)/.exec(raw)![1]!;
      expect((await viewer.post('/v1/invitations/accept', { token })).status).to.equal(200);
      expect((await exportsOf())[viewerId]).to.equal(false);
      expect((await exportSessions(viewer)).status).to.equal(403);
      const audit = (await owner.get('/v1/projects/audit', { ...scope, action: 'member.exports_changed' })).body
        .entries;
      expect(
        audit.map((e: { changes: { exports: { before: boolean; after: boolean } } }) => e.changes.exports.after),
      ).to.deep.equal([true, false, true]);
    });

    it('never leaves a project without an owner; a transfer makes the caller admin', async () => {
      const { owner, scope, members } = await team('admin');
      const [admin] = members as [ApiClient];
      const ownerId = await idOf(owner);
      for (const res of [
        await owner.post('/v1/projects/leave', undefined, scope),
        await owner.call('PATCH', `/v1/projects/members/${ownerId}`, scope, { role: 'admin' }),
        await owner.delete(`/v1/projects/members/${ownerId}`, scope),
      ]) {
        expect(res.status, res.text).to.equal(409);
        expect(res.body.detail).to.match(/^A project keeps at least one owner: /);
      }
      const moved = await owner.post('/v1/projects/transfer', { account_id: await idOf(admin) }, scope);
      expect(moved.status, moved.text).to.equal(200);
      expect(moved.body.members.map((m: { role: string }) => m.role)).to.deep.equal(['owner', 'admin']);
      const denied = await owner.delete('/v1/projects', { ...scope, confirm: scope.project });
      expect(denied.status).to.equal(403);
      expect(denied.body.detail).to.equal('This needs the owner role on the project; yours is admin');
      expect((await owner.post('/v1/projects/leave', undefined, scope)).status).to.equal(200);
      expect((await owner.get('/v1/projects/members', scope)).status).to.equal(404);
    });

    it('keeps an owner when two owners leave, or demote each other, at the same instant', async () => {
      for (let round = 0; round < 4; round++) {
        const { owner, scope, members } = await team('admin');
        const [second] = members as [ApiClient];
        const [ownerId, secondId] = await Promise.all([idOf(owner), idOf(second)]);
        const promoted = await owner.call('PATCH', `/v1/projects/members/${secondId}`, scope, { role: 'owner' });
        expect(promoted.status, promoted.text).to.equal(200);
        const leaving = round % 2 === 0;
        const answers = await Promise.all(
          leaving
            ? [owner.post('/v1/projects/leave', undefined, scope), second.post('/v1/projects/leave', undefined, scope)]
            : [
                owner.call('PATCH', `/v1/projects/members/${secondId}`, scope, { role: 'viewer' }),
                second.call('PATCH', `/v1/projects/members/${ownerId}`, scope, { role: 'viewer' }),
              ],
        );
        const statuses = answers.map((a) => a.status);
        const won = statuses.indexOf(200);
        const texts = answers.map((a) => a.text).join(' ');
        expect(
          statuses.filter((s) => s === 200),
          texts,
        ).to.have.length(1);
        // The other was refused: the last owner (409), or, demoted first, no longer an owner (403).
        expect(statuses[1 - won], texts).to.be.oneOf(leaving ? [409] : [403, 409]);
        const stays = [owner, second][leaving ? 1 - won : won]!;
        const listed = await stays.get('/v1/projects/members', scope);
        expect(listed.body.members.filter((m: { role: string }) => m.role === 'owner')).to.have.length(1);
      }
    });

    it("lets an API key act with its account's role; a read key stays read-only", async () => {
      const { scope, members } = await team('editor');
      const [editor] = members as [ApiClient];
      const full = (await editor.post('/v1/users/apikey', { api_key_name: 'ci' })).body.api_key as string;
      const read = (await editor.post('/v1/users/apikey', { api_key_name: 'wall', scope: 'read' })).body
        .api_key as string;
      const rule = { ...scope, rule_id: 'by-key', logic: { '>=': [{ var: 'event_count' }, 1] } };
      expect((await editor.withToken(full).post('/v1/rules', rule)).status).to.equal(200);
      const settings = await editor.withToken(full).call('PATCH', '/v1/projects', scope, { retention_days: 30 });
      expect(settings.status).to.equal(403);
      expect(settings.body.detail).to.equal('This needs the admin role on the project; yours is editor');
      const readOnly = await editor.withToken(read).post('/v1/rules', rule);
      expect(readOnly.status).to.equal(403);
      expect(readOnly.body.detail).to.match(/scope "read"/);
      expect((await editor.withToken(read).get('/v1/rules', scope)).status).to.equal(200);
    });

    it('refuses to delete the last owner of a shared project until ownership moves; its own projects go', async () => {
      const address = email('leaving');
      const { owner: leaving, scope: shared, members } = await team('viewer');
      const [viewer] = members as [ApiClient];
      // A project with another owner, and one of its own.
      const { owner: other, scope: coOwned } = await team();
      const invited = await other.post('/v1/projects/invitations', { ...coOwned, email: address, role: 'admin' });
      expect(invited.status).to.equal(200);
      expect((await leaving.post('/v1/invitations/accept', { token: await mailedToken(address) })).status).to.equal(
        200,
      );
      const own = newScope();
      const account = await leaving.get('/v1/users/account');
      expect((await leaving.post('/v1/users/projects', own)).status).to.equal(200);

      const refused = await leaving.delete('/v1/users/account', { confirm: account.body.email });
      expect(refused.status, refused.text).to.equal(409);
      expect(refused.body.detail).to.include(`${shared.project} (${shared.origin})`);
      expect(refused.body.detail).to.not.include(own.project);

      const viewerId = await idOf(viewer);
      expect(
        (await leaving.call('PATCH', `/v1/projects/members/${viewerId}`, shared, { role: 'owner' })).status,
      ).to.equal(200);
      const queued = await leaving.delete('/v1/users/account', { confirm: account.body.email });
      expect(queued.status, queued.text).to.equal(200);
      await waitFor(
        () => leaving.get('/v1/users/account'),
        (r) => r.status === 401,
        60_000,
        'the account deletion',
      );
      expect((await viewer.get('/v1/projects/members', shared)).body.members).to.have.length(1);
      expect((await viewer.get('/v1/sessions', shared)).status).to.equal(200);
      expect((await other.get('/v1/projects/members', coOwned)).body.members).to.have.length(1);
      const mine = await viewer.post('/v1/users/projects', own);
      expect(mine.status, 'the deleted account’s own project is gone').to.equal(200);
    });
  });
}
