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
} from '@spoor/schemas';
import type { MemberChange, Store } from '@spoor/store';
import { defineOperation, type RouteContext } from '../operation-route.js';
import { requireManageable, scopedMembership, scopedProject } from '../project-scope.js';
import { invitationRoutes, type InvitationDeps } from './invitation-routes.js';

function applied(change: MemberChange, what: string): void {
  if (change === 'not_member') throw errors.notFound('Member not found');
  if (change === 'last_owner')
    throw createError('last_owner', `${what}; make another member owner first (POST /v1/projects/transfer)`);
}

export function memberRoutes(ctx: RouteContext, store: Store, deps: InvitationDeps): void {
  const show = async (projectId: string, accountId: string) => {
    const m = await store.members.get(projectId, accountId);
    if (!m) throw errors.notFound('Member not found');
    const account = await store.accounts.get(accountId);
    return { account_id: accountId, email: account?.email ?? null, role: m.role, created_at: m.created_at };
  };
  const listMembers = async (projectId: string) => {
    const members = [];
    for (const m of await store.members.list(projectId)) {
      const account = await store.accounts.get(m.account_id);
      members.push({ account_id: m.account_id, email: account?.email ?? null, role: m.role, created_at: m.created_at });
    }
    return members;
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
        "Changes a member's role (an admin: only members below admin, to a role below admin; the last owner cannot be demoted)",
      tag: 'members',
      auth: true,
      role: 'admin',
      query: ScopeQuery,
      params: MemberPath,
      body: ChangeRoleRequest,
      response: MemberItem,
      failures: ['last_owner'],
    },
    async ({ query, params, body, principal }) => {
      const { project, role } = await scopedMembership(store, principal, query.origin, query.project);
      const current = await target(project.project_id, params.account_id);
      requireManageable(role, current.role, body.role);
      applied(
        await store.members.change(project.project_id, params.account_id, body.role, deps.clock()),
        'the last owner cannot be demoted',
      );
      return show(project.project_id, params.account_id);
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
    },
    async ({ query, params, principal }) => {
      const { project, role } = await scopedMembership(store, principal, query.origin, query.project);
      const current = await target(project.project_id, params.account_id);
      requireManageable(role, current.role);
      const shown = await show(project.project_id, params.account_id);
      applied(
        await store.members.change(project.project_id, params.account_id, null, deps.clock()),
        'the last owner cannot be removed',
      );
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
    },
    async ({ query, principal }) => {
      const { project } = await scopedMembership(store, principal, query.origin, query.project);
      applied(
        await store.members.change(project.project_id, principal.account_id, null, deps.clock()),
        'the last owner cannot leave',
      );
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
    },
    async ({ query, body, principal }) => {
      const { project } = await scopedMembership(store, principal, query.origin, query.project);
      await target(project.project_id, body.account_id);
      if (body.account_id !== principal.account_id) {
        // The new owner first, so the project has two owners for a moment and never none.
        applied(await store.members.change(project.project_id, body.account_id, 'owner', deps.clock()), 'transfer');
        applied(
          await store.members.change(project.project_id, principal.account_id, 'admin', deps.clock()),
          'transfer',
        );
      }
      return { members: await listMembers(project.project_id) };
    },
    ({ query, principal }) => scopedProject(store, principal, query.origin, query.project),
  );

  invitationRoutes(ctx, store, deps);
}
