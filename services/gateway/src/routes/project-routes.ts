import { randomUUID } from 'node:crypto';
import { newVerificationToken, verificationRecord, verifyDomain } from '@spoor/domains';
import { errors } from '@spoor/http';
import { CreateProjectRequest, normalizeOrigin, OverviewList, ProjectList, ProjectRegistration, ScopeQuery, VerifyProjectResult, type ProjectRecord } from '@spoor/schemas';
import { StoreConflictError, type Store } from '@spoor/store';
import { defineOperation, type RouteContext } from '../operation-route.js';
import { isVerified, scopedProject } from '../project-scope.js';

const item = (p: ProjectRecord) => ({ origin: p.origin, project: p.project, verified: isVerified(p), created_at: p.created_at });
const withRecord = (p: ProjectRecord) => ({ ...item(p), verification: verificationRecord(p.origin, p.verification_token) });

function originOrThrow(origin: string): string {
  const normalized = normalizeOrigin(origin);
  if (!normalized) throw new Error('unreachable');
  return normalized;
}

export function projectRoutes(ctx: RouteContext, store: Store, deps: { dnsServer: string | null; clock: () => number }): void {
  const list = async (accountId: string) => ({ projects: (await store.projects.listByAccount(accountId)).map(item) });
  defineOperation(ctx, { method: 'get', path: '/v1/projects', summary: 'All projects of the user', tag: 'projects', auth: true, response: ProjectList }, async ({ principal }) => list(principal.account_id));
  defineOperation(ctx, { method: 'get', path: '/v1/users/projects', summary: 'Projects of the authenticated user', tag: 'account', auth: true, response: ProjectList }, async ({ principal }) => list(principal.account_id));

  const Body = CreateProjectRequest.refine((b) => normalizeOrigin(b.origin) !== null, { path: ['origin'], message: 'Expected an http(s) origin such as https://acme.example' });
  defineOperation(ctx, { method: 'post', path: '/v1/users/projects', summary: 'Register an origin and project to the account; answers the TXT record that proves the domain', tag: 'account', auth: true, body: Body, response: ProjectRegistration, failures: [400, 409] }, async ({ body, principal }) => {
    const origin = originOrThrow(body.origin);
    const existing = await store.projects.find(origin, body.project);
    if (existing) {
      if (existing.account_id !== principal.account_id) throw errors.conflict('This origin and project are registered to another account');
      return withRecord(existing);
    }
    const record: ProjectRecord = { project_id: randomUUID(), origin, project: body.project, account_id: principal.account_id, verified: false, verification_token: newVerificationToken(), created_at: deps.clock() };
    try {
      await store.projects.create(record);
    } catch (err) {
      if (err instanceof StoreConflictError) throw errors.conflict('This origin and project are registered to another account');
      throw err;
    }
    return withRecord(record);
  });

  defineOperation(ctx, { method: 'post', path: '/v1/users/projects/verify', summary: "Look up the project's TXT record and mark the domain verified", tag: 'account', auth: true, body: CreateProjectRequest, response: VerifyProjectResult, failures: [400, 404] }, async ({ body, principal }) => {
    const project = await scopedProject(store, principal, body.origin, body.project);
    if (isVerified(project)) return withRecord(project);
    const result = await verifyDomain({ origin: project.origin, token: project.verification_token, dnsServer: deps.dnsServer });
    if (result.verified) {
      await store.projects.setVerified(project.project_id, true);
      return withRecord({ ...project, verified: true });
    }
    return { ...withRecord(project), reason: result.reason ?? 'TXT record not found' };
  });

  defineOperation(ctx, { method: 'get', path: '/v1/projects/overview', summary: 'Most recent stored overviews of the project, newest first', tag: 'projects', auth: true, query: ScopeQuery, response: OverviewList, failures: [404] }, async ({ query, principal }) => {
    await scopedProject(store, principal, query.origin, query.project);
    // Overviews are written by the worker's aggregation (issue 5); none exist before it runs.
    return { overviews: [] };
  });
}
