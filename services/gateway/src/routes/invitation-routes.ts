// Invitations to a project (issue 45; docs/security.md, Invitations): an owner or admin invites
// an email address to a role (an admin only below admin); the mail carries a link to the
// dashboard with a one-time token, valid 7 days, stored only as its SHA-256. Any signed-in
// account that holds the link may accept it (like PostHog's invite links; Plausible asks for the
// invited email): the token is the proof. Without SMTP the invitation is made all the same and
// its link is answered once, to the inviter.
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { createError, errors } from '@spoor/http';
import { escapeHtml, plainLine, type EmailSender } from '@spoor/notify';
import {
  AcceptInvitationRequest,
  AcceptedInvitation,
  InvitationCreated,
  InvitationList,
  InvitationPath,
  InvitationItem,
  InvitationRequest,
  ScopeQuery,
  roleAtLeast,
  type ProjectRecord,
} from '@spoor/schemas';
import type { InvitationRecord, Store } from '@spoor/store';
import { defineOperation, type RouteContext } from '../operation-route.js';
import { requireManageable, scopedMembership, scopedProject } from '../project-scope.js';

export interface InvitationDeps {
  clock: () => number;
  /** SPOOR_SMTP_URL's sender; null when mail is not configured. */
  mailer: EmailSender | null;
  /** Where links point: SPOOR_PUBLIC_URL, else the address the server listens on. */
  publicUrl: string;
}

export const INVITATION_DAYS = 7;

const hashOf = (token: string) => createHash('sha256').update(token).digest('hex');

const publicItem = ({ token_hash: _h, project_id: _p, ...rest }: InvitationRecord) => rest;

export function invitationRoutes(ctx: RouteContext, store: Store, deps: InvitationDeps): void {
  defineOperation(
    ctx,
    {
      method: 'post',
      path: '/v1/projects/invitations',
      summary: `Invites an email address to the project with a role (an admin: below admin); the mail's link is valid ${INVITATION_DAYS} days, once`,
      tag: 'members',
      auth: true,
      role: 'admin',
      body: InvitationRequest,
      response: InvitationCreated,
      failures: ['conflict'],
      audit: ['invitation.created'],
    },
    async ({ body, principal, audit }) => {
      const { project, role } = await scopedMembership(store, principal, body.origin, body.project);
      requireManageable(role, body.role);
      const email = body.email.trim().toLowerCase();
      const invitee = await store.accounts.findByEmail(email);
      if (invitee && (await store.members.get(project.project_id, invitee.account_id)))
        throw errors.conflict('This address belongs to a member of the project already');
      const token = randomBytes(32).toString('base64url');
      const now = deps.clock();
      const invitation: InvitationRecord = {
        invitation_id: randomUUID(),
        project_id: project.project_id,
        email,
        role: body.role,
        token_hash: hashOf(token),
        invited_by: principal.account_id,
        created_at: now,
        expires_at: now + INVITATION_DAYS * 86_400_000,
      };
      await store.members.invite(invitation);
      audit.record(project, {
        action: 'invitation.created',
        target: { kind: 'invitation', id: invitation.invitation_id, name: email },
        changes: { role: { before: null, after: body.role } },
      });
      const link = `${deps.publicUrl.replace(/\/$/, '')}/invitations/accept#token=${token}`;
      const outcome = deps.mailer
        ? await deps.mailer.send([email], invitationMail(project, body.role, link, principal.email))
        : { ok: false };
      return { ...publicItem(invitation), mailed: outcome.ok, link: outcome.ok ? null : link };
    },
  );

  defineOperation(
    ctx,
    {
      method: 'get',
      path: '/v1/projects/invitations',
      summary: "The project's pending invitations (not accepted, revoked or expired), newest first",
      tag: 'members',
      auth: true,
      role: 'admin',
      query: ScopeQuery,
      response: InvitationList,
    },
    async ({ query, principal }) => {
      const project = await scopedProject(store, principal, query.origin, query.project);
      return { invitations: (await store.members.invitations(project.project_id, deps.clock())).map(publicItem) };
    },
  );

  defineOperation(
    ctx,
    {
      method: 'delete',
      path: '/v1/projects/invitations/{invitation_id}',
      summary: 'Revokes a pending invitation: its link stops working',
      tag: 'members',
      auth: true,
      role: 'admin',
      query: ScopeQuery,
      params: InvitationPath,
      response: InvitationItem,
      audit: ['invitation.revoked'],
    },
    async ({ query, params, principal, audit }) => {
      const { project, role } = await scopedMembership(store, principal, query.origin, query.project);
      const found = (await store.members.invitations(project.project_id, deps.clock())).find(
        (i) => i.invitation_id === params.invitation_id,
      );
      if (!found) throw errors.notFound('Invitation not found');
      requireManageable(role, found.role);
      if (!(await store.members.revokeInvitation(project.project_id, found.invitation_id)))
        throw errors.notFound('Invitation not found');
      audit.record(project, {
        action: 'invitation.revoked',
        target: { kind: 'invitation', id: found.invitation_id, name: found.email },
        changes: { role: { before: found.role, after: null } },
      });
      return publicItem(found);
    },
  );

  defineOperation(
    ctx,
    {
      method: 'post',
      path: '/v1/invitations/accept',
      summary:
        "Accepts an invitation with the token of its link: the caller's account becomes a member with the invited role (a member keeps a higher role)",
      tag: 'members',
      auth: true,
      role: 'account',
      body: AcceptInvitationRequest,
      response: AcceptedInvitation,
      failures: ['invitation_invalid'],
      audit: ['invitation.accepted'],
    },
    async ({ body, principal, audit }) => {
      const now = deps.clock();
      const taken = await store.members.takeInvitation(hashOf(body.token), now);
      const project = taken ? await store.projects.get(taken.project_id) : null;
      if (!taken || !project) throw createError('invitation_invalid');
      const current = await store.members.get(project.project_id, principal.account_id);
      const role = current && roleAtLeast(current.role, taken.role) ? current.role : taken.role;
      if (current?.role !== role)
        await store.members.put({
          project_id: project.project_id,
          account_id: principal.account_id,
          role,
          created_at: current?.created_at ?? now,
          updated_at: now,
        });
      audit.record(project, {
        action: 'invitation.accepted',
        target: { kind: 'invitation', id: taken.invitation_id, name: taken.email },
        changes: current?.role === role ? {} : { role: { before: current?.role ?? null, after: role } },
      });
      return { origin: project.origin, project: project.project, role };
    },
  );
}

function invitationMail(project: ProjectRecord, role: string, link: string, inviter: string | null) {
  const name = plainLine(`${project.project} (${project.origin})`, 200);
  const who = inviter ? plainLine(inviter, 320) : 'A member';
  const subject = plainLine(`You are invited to ${name} on Spoor`, 200);
  const lines = [
    `${who} invited this address to the Spoor project ${name} as ${role}.`,
    `To accept, sign in (or sign up) and open this link within ${INVITATION_DAYS} days: ${link}`,
    'If you did not expect this, ignore this mail: the invitation expires unused.',
  ];
  const html =
    `<p>${escapeHtml(who)} invited this address to the Spoor project ${escapeHtml(name)} as ${escapeHtml(role)}.</p>` +
    `<p><a href="${escapeHtml(link)}">Accept the invitation</a> (sign in or sign up first; within ${INVITATION_DAYS} days).</p>` +
    '<p>If you did not expect this, ignore this mail: the invitation expires unused.</p>';
  return { subject, text: lines.join('\n\n'), markdown: lines.join('\n\n'), html };
}
