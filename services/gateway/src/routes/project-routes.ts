import { randomUUID } from 'node:crypto';
import { newVerificationToken, verificationRecord, verifyDomain } from '@spoor/domains';
import type { Kv } from '@spoor/kv';
import { RulesCache } from '@spoor/rules';
import { errors } from '@spoor/http';
import {
  CreateProjectRequest,
  UpdateProjectQuery,
  UpdateProjectRequest,
  normalizeOrigin,
  roleAtLeast,
  OverviewList,
  OverviewQuery,
  ProjectItem,
  ProjectList,
  ProjectRegistration,
  RECORD_KINDS,
  ScopeQuery,
  TransitionsResponse,
  VerifyProjectRequest,
  VerifyProjectResult,
  type Overview,
  type IpPolicy,
  type ProjectRecord,
  type TransitionMatrix,
} from '@spoor/schemas';
import { StoreConflictError, type Store } from '@spoor/store';
import { changedFields } from '../audit/audit-trail.js';
import { defineOperation, type RouteContext } from '../operation-route.js';
import { isVerified, scopedProject } from '../project-scope.js';

export interface ProjectRouteDeps {
  dnsServer: string | null;
  /** SPOOR_IP_MODE: what a project without an ip_policy of its own stores. */
  ipMode: IpPolicy;
  clock: () => number;
  /** Where the rules' change stamps live: a verification lets attribute rules read raw fields. */
  kv: Kv;
}

function originOrThrow(origin: string): string {
  const normalized = normalizeOrigin(origin);
  if (!normalized) throw new Error('unreachable');
  return normalized;
}

export function projectRoutes(ctx: RouteContext, store: Store, deps: ProjectRouteDeps): void {
  // The policy in force, so a form shows what is stored: the project's own, else the global mode.
  const item = (p: ProjectRecord) => ({
    origin: p.origin,
    project: p.project,
    verified: isVerified(p),
    created_at: p.created_at,
    retention_days: p.retention_days ?? null,
    ip_policy: p.ip_policy ?? deps.ipMode,
  });
  const withRecord = (p: ProjectRecord) => ({
    ...item(p),
    verification: verificationRecord(p.origin, p.verification_token),
  });
  // Every project the account is a member of (issue 45), in the order it joined them.
  const list = async (accountId: string) => {
    const projects = [];
    for (const m of await store.members.ofAccount(accountId)) {
      const p = await store.projects.get(m.project_id);
      if (p) projects.push({ ...item(p), role: m.role });
    }
    return { projects };
  };
  defineOperation(
    ctx,
    {
      method: 'get',
      path: '/v1/projects',
      summary: 'All projects of the user',
      tag: 'projects',
      auth: true,
      role: 'account',
      response: ProjectList,
    },
    async ({ principal }) => list(principal.account_id),
  );
  defineOperation(
    ctx,
    {
      method: 'get',
      path: '/v1/users/projects',
      summary: 'Projects of the authenticated user',
      tag: 'account',
      auth: true,
      role: 'account',
      response: ProjectList,
    },
    async ({ principal }) => list(principal.account_id),
  );

  defineOperation(
    ctx,
    {
      method: 'patch',
      path: '/v1/projects',
      summary:
        "Changes the project's retention days (null keeps events and sessions forever) and IP policy (what the enricher stores of the visitor IP from now on); answers the updated project",
      tag: 'projects',
      auth: true,
      role: 'admin',
      query: UpdateProjectQuery,
      body: UpdateProjectRequest,
      response: ProjectItem,
      failures: ['not_found'],
      audit: ['project.settings_changed'],
    },
    async ({ query, body, principal, audit }) => {
      const project = await scopedProject(store, principal, query.origin, query.project);
      const updated = await store.projects.updateSettings(project.project_id, body);
      if (!updated) throw errors.notFound('Project not found');
      const changes = changedFields(project, updated, ['retention_days', 'ip_policy']);
      if (Object.keys(changes).length > 0)
        audit.record(project, {
          action: 'project.settings_changed',
          target: { kind: 'project', id: project.project_id, name: project.project },
          changes,
        });
      return item(updated);
    },
    ({ query, principal }) => scopedProject(store, principal, query.origin, query.project),
  );

  const Body = CreateProjectRequest.refine((b) => normalizeOrigin(b.origin) !== null, {
    path: ['origin'],
    message: 'Expected an http(s) origin such as https://acme.example',
  });
  defineOperation(
    ctx,
    {
      method: 'post',
      path: '/v1/users/projects',
      summary: 'Register an origin and project to the account; answers the TXT record that proves the domain',
      tag: 'account',
      auth: true,
      role: 'account',
      body: Body,
      response: ProjectRegistration,
      failures: ['conflict'],
      audit: ['project.created'],
    },
    async ({ body, principal, audit }) => {
      const origin = originOrThrow(body.origin);
      const existing = await store.projects.find(origin, body.project);
      if (existing) {
        // Registering again answers the record to whoever may see it: an admin or owner (issue 45).
        const member = await store.members.get(existing.project_id, principal.account_id);
        if (!member || !roleAtLeast(member.role, 'admin'))
          throw errors.conflict('This origin and project are registered to another account');
        return withRecord(existing);
      }
      const record: ProjectRecord = {
        project_id: randomUUID(),
        origin,
        project: body.project,
        account_id: principal.account_id,
        verified: false,
        verification_token: newVerificationToken(),
        created_at: deps.clock(),
      };
      try {
        await store.projects.create(record);
      } catch (err) {
        if (err instanceof StoreConflictError)
          throw errors.conflict('This origin and project are registered to another account');
        throw err;
      }
      audit.record(record, {
        action: 'project.created',
        target: { kind: 'project', id: record.project_id, name: record.project },
        changes: { origin: { before: null, after: record.origin }, project: { before: null, after: record.project } },
      });
      return withRecord(record);
    },
  );

  defineOperation(
    ctx,
    {
      method: 'post',
      path: '/v1/users/projects/verify',
      summary: "Look up the project's TXT record and mark the domain verified",
      tag: 'account',
      auth: true,
      role: 'admin',
      body: VerifyProjectRequest,
      response: VerifyProjectResult,
      failures: ['not_found'],
      audit: ['project.verified'],
    },
    async ({ body, principal, audit }) => {
      const project = await scopedProject(store, principal, body.origin, body.project);
      if (isVerified(project)) return withRecord(project);
      const result = await verifyDomain({
        origin: project.origin,
        token: project.verification_token,
        dnsServer: deps.dnsServer,
      });
      if (result.verified) {
        await store.projects.setVerified(project.project_id, true);
        // Attribute rules reading raw fields were left out while unverified (issue 42): the
        // next batch in every process loads them.
        await RulesCache.changed(deps.kv, project.project_id);
        audit.record(project, {
          action: 'project.verified',
          target: { kind: 'project', id: project.project_id, name: project.project },
          changes: { verified: { before: false, after: true } },
        });
        return withRecord({ ...project, verified: true });
      }
      return { ...withRecord(project), reason: result.reason ?? 'TXT record not found' };
    },
  );

  defineOperation(
    ctx,
    {
      method: 'get',
      path: '/v1/projects/overview',
      summary: 'Most recent stored overviews (digests) of the project, newest window first',
      tag: 'projects',
      auth: true,
      role: 'viewer',
      query: OverviewQuery,
      response: OverviewList,
      failures: ['not_found'],
    },
    async ({ query, principal }) => {
      const p = await scopedProject(store, principal, query.origin, query.project);
      const rows = await store.records.list<Overview>(RECORD_KINDS.overview, p.project_id, { limit: query.limit });
      return { overviews: rows.map((r) => r.data) };
    },
  );

  defineOperation(
    ctx,
    {
      method: 'get',
      path: '/v1/transitions',
      summary: 'The latest transition matrix of the project (POST /v1/trigger/transitions computes one)',
      tag: 'projects',
      auth: true,
      role: 'viewer',
      query: ScopeQuery,
      response: TransitionsResponse,
      failures: ['not_found'],
    },
    async ({ query, principal }) => {
      const p = await scopedProject(store, principal, query.origin, query.project);
      const [latest] = await store.records.list<TransitionMatrix>(RECORD_KINDS.transitions, p.project_id, { limit: 1 });
      if (!latest) throw errors.notFound('No transition matrix yet; POST /v1/trigger/transitions computes one');
      return latest.data;
    },
  );
}
