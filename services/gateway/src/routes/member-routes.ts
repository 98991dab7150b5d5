// Members of a project (issue 45; docs/security.md, Roles): list, change a role, remove, leave,
// transfer ownership. A project keeps at least one owner (the store refuses the change: 409
// last_owner). An admin manages only members below admin; an owner manages everyone.
import { createError, errors } from '@spoor/http';
import {
  ChangeRoleRequest,
  LeaveResult,
  MemberItem,
  MemberList,
  MemberPath,
  ScopeQuery,
  TransferRequest,
  type ProjectRole,
} from '@spoor/schemas';
import type { MemberChange, Store } from '@spoor/store';
import type { Kv } from '@spoor/kv';
import { withMemberLock } from '../member-lock.js';
import { exportGrantees, exportsAllowed, hasExportGrant, setExportGrant } from '../export-grants.js';
import { defineOperation, type RouteContext } from '../operation-route.js';
import { requireManageable, scopedMembership, scopedProject } from '../project-scope.js';
import { invitationRoutes, type InvitationDeps } from './invitation-routes.js';

function applied(change: MemberChange, what: string): void {
  if (change === 'not_member') throw errors.notFound('Member not found');
  if (change === 'last_owner')
    throw createError('last_owner', `${what}; make another member owner first (POST /v1/projects/transfer)`);
}

export function memberRoutes(ctx: RouteContext, store: Store, deps: InvitationDeps & { kv: Kv }): void {
  /** A role change or removal; one of the project's at a time (member-lock.ts). */
  const change = (projectId: string, accountId: string, role: ProjectRole | null) =>
    withMemberLock(deps.kv, projectId, () => store.members.change(projectId, accountId, role, deps.clock()));
  const item = (
    m: { account_id: string; role: ProjectRole; created_at: number },
    email: string | null,
    granted: boolean,
  ) => ({
    account_id: m.account_id,
    email,
    role: m.role,
    exports: exportsAllowed(m.role, granted),
    created_at: m.created_at,
  });
  const show = async (projectId: string, accountId: string) => {
    const m = await store.members.get(projectId, accountId);
    if (!m) throw errors.notFound('Member not found');
    const [account, granted] = await Promise.all([
      store.accounts.get(accountId),
      hasExportGrant(store, projectId, accountId),
    ]);
    return item({ ...m, account_id: accountId }, account?.email ?? null, granted);
  };
  /** The members with the project's export grants read once, not once a member. */
  const listMembers = async (projectId: string) => {
    const [members, granted] = await Promise.all([store.members.list(projectId), exportGrantees(store, projectId)]);
    const items = [];
    for (const m of members)
      items.push(item(m, (await store.accounts.get(m.account_id))?.email ?? null, granted.has(m.account_id)));
    return items;
  };
  /** A member who leaves or is removed loses its grant with its role: invited again, it starts without. */
  const dropGrant = async (projectId: string, accountId: string) => {
    if (await hasExportGrant(store, projectId, accountId))
      await setExportGrant(store, projectId, accountId, false, '', deps.clock());
  };
  const target = async (projectId: string, accountId: string) => {
    const m = await store.members.get(projectId, accountId);
    if (!m) throw errors.notFound('Member not found');
    return m;
  };

  defineOperation(
    ctx,
    {
      method: 'get',
      path: '/v1/projects/members',
      summary: "The project's members with their roles, owners first",
      tag: 'members',
      auth: true,
      role: 'viewer',
      query: ScopeQuery,
      response: MemberList,
    },
    async ({ query, principal }) => {
      const { project } = await scopedMembership(store, principal, query.origin, query.project);
      return { members: await listMembers(project.project_id) };
    },
  );

  defineOperation(
    ctx,
    {
      method: 'patch',
      path: '/v1/projects/members/{account_id}',
      summary:
        "Changes a member's role, or a viewer's grant to export (an admin: only members below admin, to a role below admin; the last owner cannot be demoted)",
      tag: 'members',
      auth: true,
      role: 'admin',
      query: ScopeQuery,
      params: MemberPath,
      body: ChangeRoleRequest,
      response: MemberItem,
      failures: ['last_owner'],
      audit: ['member.role_changed', 'member.exports_changed'],
    },
    async ({ query, params, body, principal, audit }) => {
      const { project, role } = await scopedMembership(store, principal, query.origin, query.project);
      const current = await target(project.project_id, params.account_id);
      const nextRole = body.role ?? current.role;
      requireManageable(role, current.role, nextRole);
      // The grant as stored, not what it amounts to: a role change alone changes no grant.
      const granted = await hasExportGrant(store, project.project_id, params.account_id);
      if (body.role !== undefined)
        applied(await change(project.project_id, params.account_id, body.role), 'the last owner cannot be demoted');
      if (body.exports !== undefined)
        await setExportGrant(
          store,
          project.project_id,
          params.account_id,
          body.exports,
          principal.account_id,
          deps.clock(),
        );
      const shown = await show(project.project_id, params.account_id);
      const target_ = { kind: 'member' as const, id: params.account_id, name: shown.email };
      if (current.role !== nextRole)
        audit.record(project, {
          action: 'member.role_changed',
          target: target_,
          changes: { role: { before: current.role, after: nextRole } },
        });
      if (body.exports !== undefined && body.exports !== granted)
        audit.record(project, {
          action: 'member.exports_changed',
          target: target_,
          changes: { exports: { before: granted, after: body.exports } },
        });
      return shown;
    },
    // A project of nobody answers 404 whatever the body holds (operation-route.ts, Preflight).
    ({ query, principal }) => scopedProject(store, principal, query.origin, query.project),
  );

  defineOperation(
    ctx,
    {
      method: 'delete',
      path: '/v1/projects/members/{account_id}',
      summary: 'Removes a member (an admin: only members below admin; the last owner cannot be removed)',
      tag: 'members',
      auth: true,
      role: 'admin',
      query: ScopeQuery,
      params: MemberPath,
      response: MemberItem,
      failures: ['last_owner'],
      audit: ['member.removed'],
    },
    async ({ query, params, principal, audit }) => {
      const { project, role } = await scopedMembership(store, principal, query.origin, query.project);
      const current = await target(project.project_id, params.account_id);
      requireManageable(role, current.role);
      const shown = await show(project.project_id, params.account_id);
      applied(await change(project.project_id, params.account_id, null), 'the last owner cannot be removed');
      await dropGrant(project.project_id, params.account_id);
      audit.record(project, {
        action: 'member.removed',
        target: { kind: 'member', id: params.account_id, name: shown.email },
        changes: { role: { before: current.role, after: null } },
      });
      return shown;
    },
  );

  defineOperation(
    ctx,
    {
      method: 'post',
      path: '/v1/projects/leave',
      summary: 'Leaves the project (the last owner cannot leave: transfer ownership first)',
      tag: 'members',
      auth: true,
      role: 'viewer',
      query: ScopeQuery,
      response: LeaveResult,
      failures: ['last_owner'],
      audit: ['member.left'],
    },
    async ({ query, principal, audit }) => {
      const { project, role } = await scopedMembership(store, principal, query.origin, query.project);
      applied(await change(project.project_id, principal.account_id, null), 'the last owner cannot leave');
      await dropGrant(project.project_id, principal.account_id);
      audit.record(project, {
        action: 'member.left',
        target: { kind: 'member', id: principal.account_id, name: principal.email },
        changes: { role: { before: role, after: null } },
      });
      return { left: true as const };
    },
  );

  defineOperation(
    ctx,
    {
      method: 'post',
      path: '/v1/projects/transfer',
      summary: 'Transfers ownership: the member named becomes owner and the caller admin',
      tag: 'members',
      auth: true,
      role: 'owner',
      query: ScopeQuery,
      body: TransferRequest,
      response: MemberList,
      audit: ['ownership.transferred', 'member.role_changed'],
    },
    async ({ query, body, principal, audit }) => {
      const { project } = await scopedMembership(store, principal, query.origin, query.project);
      const next = await target(project.project_id, body.account_id);
      if (body.account_id !== principal.account_id) {
        // The new owner first, so the project has two owners for a moment and never none.
        applied(await change(project.project_id, body.account_id, 'owner'), 'transfer');
        audit.record(project, {
          action: 'ownership.transferred',
          target: {
            kind: 'member',
            id: body.account_id,
            name: (await store.accounts.get(body.account_id))?.email ?? null,
          },
          changes: { role: { before: next.role, after: 'owner' } },
        });
        applied(await change(project.project_id, principal.account_id, 'admin'), 'transfer');
        audit.record(project, {
          action: 'member.role_changed',
          target: { kind: 'member', id: principal.account_id, name: principal.email },
          changes: { role: { before: 'owner', after: 'admin' } },
        });
      }
      return { members: await listMembers(project.project_id) };
    },
    ({ query, principal }) => scopedProject(store, principal, query.origin, query.project),
  );

  invitationRoutes(ctx, store, deps);
}
