import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { requireEngine } from '@spoor/testkit';
import { cliUser, type CliResult, type CliUser } from '../support/cli-runner.js';
import { startSpoor, type Harness } from '../support/spoor-harness.js';

/**
 * `spoor members`, `invite` and `invitations` (issue 45) of the real binary against a server
 * without SMTP, so each invitation's link is printed. Embedded only: the members' store is tested
 * on every engine by test/e2e/members.test.ts.
 */
describe('spoor CLI: members and invitations: embedded', function () {
  this.timeout(120_000);
  let spoor: Harness;
  let owner: CliUser;
  let guest: CliUser;
  const origin = 'http://localhost:4700';
  const project = 'team/cli';
  const id = Math.random().toString(36).slice(2, 8);
  const ownerEmail = `owner-${id}@example.com`;
  const guestEmail = `guest-${id}@example.com`;
  const password = { env: { SPOOR_PASSWORD: 'long enough pw' } };

  const ok = (r: CliResult) => {
    expect(r.code, r.stderr).to.equal(0);
    return r;
  };
  const roles = async () =>
    ok(await owner.run(['members', 'list']))
      .json()
      .members.map((m: { email: string; role: string }) => [m.email, m.role]);

  before(async function () {
    const started = await startSpoor('embedded', { SPOOR_RATE_SIGNUP_IP: '0' });
    requireEngine(this, started ? 'ok' : null, 'engines for embedded mode');
    spoor = started!;
    owner = await cliUser(spoor.url);
    guest = await cliUser(spoor.url);
    ok(await owner.run(['signup', ownerEmail], password));
    ok(await guest.run(['signup', guestEmail], password));
    ok(await owner.run(['projects', 'add', origin, project]));
    ok(await owner.run(['use', origin, project]));
  });
  after(async () => spoor?.stop());

  it('invites without SMTP: prints the link; lists and revokes pending invitations', async () => {
    const table = ok(await owner.tty(['invite', `other-${id}@example.com`, '--role', 'viewer']));
    expect(table.stdout).to.match(/no mail was sent: pass this link on yourself/);
    expect(table.stdout).to.match(/\/invitations\/accept#token=[\w-]+/);
    const pending = ok(await owner.run(['invitations', 'list'])).json().invitations;
    expect(pending.map((i: { email: string; role: string }) => [i.email, i.role])).to.deep.equal([
      [`other-${id}@example.com`, 'viewer'],
    ]);
    expect(ok(await owner.tty(['invitations'])).stdout).to.match(
      /INVITATION_ID\s+EMAIL\s+ROLE\s+CREATED_AT\s+EXPIRES_AT/,
    );
    const revoked = ok(await owner.run(['invitations', 'revoke', pending[0].invitation_id])).json();
    expect(revoked).to.include({ email: `other-${id}@example.com` });
    expect(ok(await owner.run(['invitations', 'list'])).json().invitations).to.deep.equal([]);
    // The revoked link no longer works.
    const link = /\S+\/invitations\/accept#token=[\w-]+/.exec(table.stdout)![0];
    const refused = await guest.run(['invitations', 'accept', link]);
    expect(refused.code).to.equal(1);
    expect(refused.stderr).to.match(/^error: .*unknown, expired, revoked or already used/);
  });

  it('invites as editor; another account accepts the link once; both see the roles', async () => {
    const invited = ok(await owner.run(['invite', guestEmail, '--role', 'editor'])).json();
    expect(invited).to.include({ email: guestEmail, role: 'editor', mailed: false });
    expect(invited.link).to.match(/\/invitations\/accept#token=[\w-]+$/);
    const joined = ok(await guest.run(['invitations', 'accept', invited.link])).json();
    expect(joined).to.deep.equal({ origin, project, role: 'editor' });
    // `--`: a token may begin with '-' (base64url), which would read as an option.
    const again = await guest.run(['invitations', 'accept', '--', invited.link.split('#token=')[1]]);
    expect(again.code).to.equal(1);
    expect(again.stderr.trim()).to.equal(
      'error: This invitation is unknown, expired, revoked or already used; ask for a new one',
    );
    const mine = ok(await guest.run(['projects', 'list'])).json().projects;
    expect(mine.map((p: { project: string; role: string }) => [p.project, p.role])).to.deep.equal([
      [project, 'editor'],
    ]);
    expect(await roles()).to.deep.equal([
      [ownerEmail, 'owner'],
      [guestEmail, 'editor'],
    ]);
    const listed = ok(await owner.tty(['members']));
    expect(listed.stdout.split('\n')[0]).to.match(/^ACCOUNT_ID\s+EMAIL\s+ROLE\s+EXPORTS\s+CREATED_AT/);
    expect(listed.stdout).to.match(new RegExp(`${guestEmail}\\s+editor\\s+true`));
  });

  it('changes a role by email; refuses a bad role (2) and what the role does not allow (1), with the API’s words', async () => {
    const changed = ok(await owner.run(['members', 'role', guestEmail, 'viewer'])).json();
    expect(changed).to.include({ email: guestEmail, role: 'viewer' });
    expect(ok(await owner.tty(['members', 'role', guestEmail, 'viewer'])).stdout.trim()).to.equal(
      `${guestEmail} is now viewer of ${project}`,
    );
    expect((await owner.run(['members', 'role', guestEmail, 'boss'])).code).to.equal(2);
    expect((await owner.run(['invite', 'x@example.com', '--role', 'owner'])).code).to.equal(2);
    expect((await owner.run(['invite', 'x@example.com'])).code).to.equal(2);
    // A viewer exports only when granted: refused, granted, exported, withdrawn.
    const scope = ['--origin', origin, '--project', project];
    const file = join(await mkdtemp(join(tmpdir(), 'spoor-cli-grant-')), 'sessions.ndjson');
    const exportAsGuest = () =>
      guest.run(['export', 'sessions', '--format', 'ndjson', '-o', file, '--poll-ms', '100', ...scope]);
    const refusedExport = await exportAsGuest();
    expect(refusedExport.code).to.equal(1);
    expect(refusedExport.stderr.trim()).to.equal('error: This needs the editor role on the project; yours is viewer');
    expect(ok(await owner.tty(['members', 'exports', guestEmail, 'on'])).stdout.trim()).to.equal(
      `${guestEmail} (viewer) may export from ${project}`,
    );
    expect(ok(await exportAsGuest()).code).to.equal(0);
    expect(ok(await owner.run(['members', 'exports', guestEmail, 'off'])).json()).to.include({ exports: false });
    expect((await exportAsGuest()).code).to.equal(1);
    expect((await owner.run(['members', 'exports', guestEmail, 'maybe'])).code).to.equal(2);
    const forbidden = await guest.run(['members', 'role', ownerEmail, 'viewer', ...scope]);
    expect(forbidden.code).to.equal(1);
    expect(forbidden.stderr.trim()).to.equal('error: This needs the admin role on the project; yours is viewer');
    const lastOwner = await owner.run(['members', 'leave']);
    expect(lastOwner.code).to.equal(1);
    expect(lastOwner.stderr).to.match(/the last owner cannot leave/);
    const unknown = await owner.run(['members', 'remove', `nobody-${id}@example.com`]);
    expect(unknown.code).to.equal(1);
    expect(unknown.stderr.trim()).to.equal(`error: nobody-${id}@example.com is not a member of ${project}`);
  });

  it('transfers ownership; the admin it leaves cannot remove the owner, who removes it', async () => {
    const transferred = ok(await owner.run(['members', 'transfer', guestEmail])).json().members;
    expect(transferred.map((m: { email: string; role: string }) => [m.email, m.role])).to.have.deep.members([
      [guestEmail, 'owner'],
      [ownerEmail, 'admin'],
    ]);
    // An admin cannot remove an owner; the new owner can remove the admin.
    const refused = await owner.run(['members', 'remove', guestEmail]);
    expect(refused.code).to.equal(1);
    expect(refused.stderr).to.match(/This needs the owner role on the project; yours is admin/);
    const scope = ['--origin', origin, '--project', project];
    const ownerId = transferred.find((m: { email: string }) => m.email === ownerEmail).account_id;
    const removed = ok(await guest.run(['members', 'remove', ownerId, ...scope])).json();
    expect(removed).to.include({ email: ownerEmail, role: 'admin' });
    expect(ok(await owner.run(['projects', 'list'])).json().projects).to.deep.equal([]);
    const alone = ok(await guest.run(['members', 'list', ...scope])).json().members;
    expect(alone.map((m: { email: string; role: string }) => [m.email, m.role])).to.deep.equal([[guestEmail, 'owner']]);
  });

  it('spoor audit: the changes above, newest first, with who made them; filters by action and actor', async () => {
    const scope = ['--origin', origin, '--project', project];
    type Entry = {
      action: string;
      actor: { email: string };
      target: { kind: string; name: string | null };
      changes: Record<string, { before: unknown; after: unknown }>;
    };
    const all: Entry[] = ok(await guest.run(['audit', '--all', ...scope])).json().entries;
    const actions = all.map((e) => e.action);
    // Newest first: the removal, the transfer, the change to viewer, the accepted invitation.
    const toViewer = all.findIndex((e) => e.action === 'member.role_changed' && e.changes['role']?.before === 'editor');
    const order = [
      actions.indexOf('member.removed'),
      actions.indexOf('ownership.transferred'),
      toViewer,
      actions.indexOf('invitation.accepted'),
    ];
    expect(order.every((at, i) => at >= 0 && (i === 0 || at > order[i - 1]!))).to.equal(true, actions.join(', '));
    expect(actions).to.include.members(['invitation.created', 'invitation.revoked']);
    const removed = all.find((e) => e.action === 'member.removed')!;
    expect(removed.actor.email).to.equal(guestEmail);
    expect(removed.target).to.include({ kind: 'member', name: ownerEmail });
    expect(all[toViewer]!.actor.email).to.equal(ownerEmail);
    expect(all[toViewer]!.changes['role']).to.deep.equal({ before: 'editor', after: 'viewer' });
    // A category filters its actions; an actor by email.
    const members: Entry[] = ok(await guest.run(['audit', '--action', 'member', ...scope])).json().entries;
    expect(members.length).to.be.greaterThan(0);
    expect(members.every((e) => e.action.startsWith('member.'))).to.equal(true);
    const byOwner: Entry[] = ok(await guest.run(['audit', '--all', '--actor', ownerEmail, ...scope])).json().entries;
    expect(byOwner.map((e) => e.actor.email)).to.have.members(byOwner.map(() => ownerEmail));
    expect(byOwner.map((e) => e.action)).to.include('ownership.transferred');
    // People get a table, the change as before → after.
    const table = ok(await guest.tty(['audit', '--action', 'member.role_changed', ...scope])).stdout;
    expect(table.split(/\r?\n/)[0], table).to.match(/^AT\s+ACTOR\s+ACTION\s+TARGET\s+CHANGES$/);
    expect(table).to.match(/member\.role_changed\s+member \S+\s+role: editor → viewer/);
    // A wrong action is the API's 422; the removed owner no longer sees the project.
    const bad = await guest.run(['audit', '--action', 'member.exploded', ...scope]);
    expect(bad.code).to.equal(1);
    expect(bad.stderr).to.match(/action/);
    const gone = await owner.run(['audit', ...scope]);
    expect(gone.code).to.equal(1);
  });
});
