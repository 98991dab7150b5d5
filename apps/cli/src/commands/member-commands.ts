import { Argument, Option, type Command } from 'commander';
import type { SpoorClient } from '@spoor/client';
import { unwrap } from '../api-result.js';
import { CliError, UsageError } from '../cli-errors.js';
import { act, type SessionFactory } from '../command-action.js';
import { fields } from '../cli-output.js';
import type { CliSession } from '../cli-session.js';

// Members and invitations of a project (issue 45; docs/security.md, Roles; docs/cli.md).
const ROLES = ['owner', 'admin', 'editor', 'viewer'] as const;
type Role = (typeof ROLES)[number];
/** An invitation grants any role but owner: ownership goes to a member (`members transfer`). */
const INVITED_ROLES = ['admin', 'editor', 'viewer'] as const;
type InvitedRole = (typeof INVITED_ROLES)[number];

type Scope = { origin: string; project: string };
type Member = { account_id: string; email: string | null; role: Role; exports: boolean; created_at: number };

const memberColumns = fields<Member>('account_id', 'email', 'role', 'exports', 'created_at');

/**
 * The account id of `who`: an id as given, or the member with that email (the API names members
 * by id; people know them by address).
 */
async function accountIdOf(client: SpoorClient, scope: Scope, who: string): Promise<string> {
  if (!who.includes('@')) return who;
  const { members } = unwrap(await client.GET('/v1/projects/members', { params: { query: scope } }));
  const found = members.find((m) => m.email?.toLowerCase() === who.toLowerCase());
  if (!found) throw new CliError(`${who} is not a member of ${scope.project}`);
  return found.account_id;
}

/**
 * The token of an invitation: the whole link as mailed (`…/invitations/accept#token=…`) or the
 * token alone.
 */
function invitationToken(given: string): string {
  const token = /[#?&]token=([^&\s]+)/.exec(given)?.[1] ?? given.trim();
  if (!/^[A-Za-z0-9_-]+$/.test(token)) throw new UsageError('give the invitation link, or the token after #token=');
  return token;
}

async function scoped(s: CliSession): Promise<{ client: SpoorClient; scope: Scope }> {
  return { client: await s.client(), scope: await s.scope() };
}

function registerMembers(program: Command, make: SessionFactory): void {
  const members = program
    .command('members')
    .description("the project's members and their roles: list, change a role, remove, leave, transfer ownership");
  members
    .command('list', { isDefault: true })
    .description('every member with its role, owners first')
    .action(
      act(make, async (s) => {
        const { client, scope } = await scoped(s);
        const data = unwrap(await client.GET('/v1/projects/members', { params: { query: scope } }));
        s.out.result(data, () => s.out.table(data.members, memberColumns));
      }),
    );
  members
    .command('role')
    .description("change a member's role (an admin: only below admin; the last owner stays owner)")
    .argument('<member>', 'account id or email')
    .addArgument(new Argument('<role>', 'the new role').choices(ROLES))
    .action(
      act(make, async (s, who: string, role: Role) => {
        const { client, scope } = await scoped(s);
        const account_id = await accountIdOf(client, scope, who);
        const m = unwrap(
          await client.PATCH('/v1/projects/members/{account_id}', {
            params: { path: { account_id }, query: scope },
            body: { role },
          }),
        );
        s.out.result(m, () => `${m.email ?? m.account_id} is now ${m.role} of ${scope.project}`);
      }),
    );
  members
    .command('exports')
    .description('grant a viewer exports of events and sessions, or withdraw it (editors and above always export)')
    .argument('<member>', 'account id or email')
    .addArgument(new Argument('<grant>', 'on to grant, off to withdraw').choices(['on', 'off']))
    .action(
      act(make, async (s, who: string, grant: 'on' | 'off') => {
        const { client, scope } = await scoped(s);
        const account_id = await accountIdOf(client, scope, who);
        const m = unwrap(
          await client.PATCH('/v1/projects/members/{account_id}', {
            params: { path: { account_id }, query: scope },
            body: { exports: grant === 'on' },
          }),
        );
        s.out.result(
          m,
          () => `${m.email ?? m.account_id} (${m.role}) ${m.exports ? 'may' : 'may not'} export from ${scope.project}`,
        );
      }),
    );
  members
    .command('remove')
    .description('remove a member from the project (an admin: only below admin)')
    .argument('<member>', 'account id or email')
    .action(
      act(make, async (s, who: string) => {
        const { client, scope } = await scoped(s);
        const account_id = await accountIdOf(client, scope, who);
        const m = unwrap(
          await client.DELETE('/v1/projects/members/{account_id}', { params: { path: { account_id }, query: scope } }),
        );
        s.out.result(m, () => `removed ${m.email ?? m.account_id} (${m.role}) from ${scope.project}`);
      }),
    );
  members
    .command('leave')
    .description('leave the project (the last owner cannot: transfer ownership first)')
    .action(
      act(make, async (s) => {
        const { client, scope } = await scoped(s);
        const data = unwrap(await client.POST('/v1/projects/leave', { params: { query: scope } }));
        s.out.result(data, () => `you left ${scope.project} at ${scope.origin}`);
      }),
    );
  members
    .command('transfer')
    .description('make a member the owner; you become admin')
    .argument('<member>', 'account id or email')
    .action(
      act(make, async (s, who: string) => {
        const { client, scope } = await scoped(s);
        const account_id = await accountIdOf(client, scope, who);
        const data = unwrap(
          await client.POST('/v1/projects/transfer', { params: { query: scope }, body: { account_id } }),
        );
        s.out.result(data, () => s.out.table(data.members, memberColumns));
      }),
    );
}

function registerInvitations(program: Command, make: SessionFactory): void {
  program
    .command('invite')
    .description('invite an email address to the project; prints the link when no mail was sent (no SMTP)')
    .argument('<email>')
    .addOption(new Option('--role <role>', 'the role it is given').choices(INVITED_ROLES).makeOptionMandatory())
    .action(
      act(make, async (s, email: string, o: { role: InvitedRole }) => {
        const { client, scope } = await scoped(s);
        const invited = unwrap(
          await client.POST('/v1/projects/invitations', { body: { ...scope, email, role: o.role } }),
        );
        const until = s.out.time(invited.expires_at);
        s.out.result(invited, () =>
          invited.link
            ? `invited ${invited.email} as ${invited.role}; no mail was sent: pass this link on yourself (it works once, until ${until}, and is not shown again):\n${invited.link}`
            : `invited ${invited.email} as ${invited.role}: the mail is sent; the link works once, until ${until}`,
        );
      }),
    );
  const invitations = program
    .command('invitations')
    .description("the project's pending invitations: list, revoke; accept one with its link");
  invitations
    .command('list', { isDefault: true })
    .description('pending invitations (not accepted, revoked or expired), newest first')
    .action(
      act(make, async (s) => {
        const { client, scope } = await scoped(s);
        const data = unwrap(await client.GET('/v1/projects/invitations', { params: { query: scope } }));
        s.out.result(data, () =>
          s.out.table(data.invitations, fields('invitation_id', 'email', 'role', 'created_at', 'expires_at')),
        );
      }),
    );
  invitations
    .command('revoke')
    .description('revoke a pending invitation: its link stops working')
    .argument('<id>', 'the invitation id (`spoor invitations list`)')
    .action(
      act(make, async (s, id: string) => {
        const { client, scope } = await scoped(s);
        const data = unwrap(
          await client.DELETE('/v1/projects/invitations/{invitation_id}', {
            params: { path: { invitation_id: id }, query: scope },
          }),
        );
        s.out.result(data, () => `revoked the invitation of ${data.email}`);
      }),
    );
  invitations
    .command('accept')
    .description('accept an invitation: your account joins its project with the role given')
    .argument('<link>', 'the link of the invitation mail, or its token')
    .action(
      act(make, async (s, given: string) => {
        const token = invitationToken(given);
        const joined = unwrap(await (await s.client()).POST('/v1/invitations/accept', { body: { token } }));
        s.out.result(
          joined,
          () =>
            `you are ${joined.role} of ${joined.project} at ${joined.origin}; \`spoor use ${joined.origin} ${joined.project}\` to work on it`,
        );
      }),
    );
}

/** `members …`, `invite`, `invitations …` (issue 45). */
export function registerMemberCommands(program: Command, make: SessionFactory): void {
  registerMembers(program, make);
  registerInvitations(program, make);
}
