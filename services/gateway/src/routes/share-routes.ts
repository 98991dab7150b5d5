// Public share links (issue 45, item 3; docs/security.md, Share links): an owner or admin makes a
// read-only link to the project's aggregates (the Overview), optionally behind a password, lists
// and revokes them. Anyone holding the link reads the stats query's answers through it, without
// an account: aggregates only — no sessions, event rows or payload properties — rate limited per
// client address, a password's attempts more tightly.
import type { Request } from 'express';
import { verifyPassword } from '@spoor/auth';
import { errors } from '@spoor/http';
import { clientKey } from '@spoor/limits';
import {
  ScopeQuery,
  ShareCreateRequest,
  ShareCreated,
  ShareItem,
  ShareList,
  SharePath,
  SharedInfo,
  SharedPath,
  SharedStatsRequest,
  ShareUnlockRequest,
  ShareUnlocked,
  StatsQueryResult,
} from '@spoor/schemas';
import type { Store } from '@spoor/store';
import { defineOperation, type RouteContext } from '../operation-route.js';
import { scopedProject } from '../project-scope.js';
import { grantValid, shareItem, signGrant, ShareLinks, type SharedLink } from '../share-links.js';
import { answerStats } from '../stats-answer.js';

export interface ShareDeps {
  clock: () => number;
  /** Where links point: SPOOR_PUBLIC_URL, else the address the server listens on. */
  publicUrl: string;
}

const bearer = (req: Request) => /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? '')?.[1] ?? null;

export function shareRoutes(ctx: RouteContext, store: Store, deps: ShareDeps): void {
  const links = new ShareLinks(store, deps.clock);
  const spend = (req: Request) => ctx.limits?.spend('shared_ip', clientKey(req.ip ?? ''));

  /** A password-protected link's stats need the grant its unlock answered. */
  const requireGrant = ({ link }: SharedLink, req: Request) => {
    if (link.password_hash === null) return;
    const grant = bearer(req);
    if (grant === null)
      throw errors.unauthorized('This share link needs its password: unlock it with POST /v1/shared/{token}/unlock');
    if (!grantValid(link, grant, deps.clock()))
      throw errors.unauthorized('The password grant of this share link is not valid or expired; unlock it again');
  };

  defineOperation(
    ctx,
    {
      method: 'post',
      path: '/v1/projects/shares',
      summary:
        "Makes a public read-only link to the project's aggregates (the Overview), optionally behind a password; the link is answered once",
      tag: 'shares',
      auth: true,
      role: 'admin',
      body: ShareCreateRequest,
      response: ShareCreated,
      audit: ['share_link.created'],
    },
    async ({ body, principal, audit }) => {
      const project = await scopedProject(store, principal, body.origin, body.project);
      const { link, token } = await links.create(project.project_id, body.label, body.password, principal.account_id);
      // Never the token nor the password: whether there is one.
      audit.record(project, {
        action: 'share_link.created',
        target: { kind: 'share_link', id: link.share_id, name: link.label },
        changes: {
          label: { before: null, after: link.label },
          has_password: { before: null, after: link.password_hash !== null },
        },
      });
      return { ...shareItem(link), token, link: `${deps.publicUrl.replace(/\/$/, '')}/share/${token}` };
    },
  );

  defineOperation(
    ctx,
    {
      method: 'get',
      path: '/v1/projects/shares',
      summary: "The project's share links, newest first; never their tokens or passwords",
      tag: 'shares',
      auth: true,
      role: 'admin',
      query: ScopeQuery,
      response: ShareList,
    },
    async ({ query, principal }) => {
      const project = await scopedProject(store, principal, query.origin, query.project);
      return { shares: (await links.list(project.project_id)).map(shareItem) };
    },
  );

  defineOperation(
    ctx,
    {
      method: 'delete',
      path: '/v1/projects/shares/{share_id}',
      summary: 'Revokes a share link: it answers 404 from then on',
      tag: 'shares',
      auth: true,
      role: 'admin',
      query: ScopeQuery,
      params: SharePath,
      response: ShareItem,
      audit: ['share_link.revoked'],
    },
    async ({ query, params, principal, audit }) => {
      const project = await scopedProject(store, principal, query.origin, query.project);
      const revoked = await links.revoke(project.project_id, params.share_id);
      if (!revoked) throw errors.notFound('Share link not found');
      audit.record(project, {
        action: 'share_link.revoked',
        target: { kind: 'share_link', id: revoked.share_id, name: revoked.label },
      });
      return shareItem(revoked);
    },
  );

  defineOperation(
    ctx,
    {
      method: 'get',
      path: '/v1/shared/{token}',
      summary: "What a share link opens: the project's name and origin, its label, whether it needs a password",
      tag: 'shares',
      auth: false,
      role: 'public',
      params: SharedPath,
      response: SharedInfo,
      failures: ['share_link_invalid', 'rate_limited'],
    },
    async ({ params, req }) => {
      await spend(req);
      const { project, link } = await links.open(params.token);
      return {
        origin: project.origin,
        project: project.project,
        label: link.label,
        has_password: link.password_hash !== null,
      };
    },
  );

  defineOperation(
    ctx,
    {
      method: 'post',
      path: '/v1/shared/{token}/unlock',
      summary:
        "Checks a password-protected share link's password; answers a grant for its stats, valid 12 hours (attempts are rate limited per address)",
      tag: 'shares',
      auth: false,
      role: 'public',
      params: SharedPath,
      body: ShareUnlockRequest,
      response: ShareUnlocked,
      failures: ['share_link_invalid', 'unauthorized', 'rate_limited'],
    },
    async ({ params, body, req }) => {
      await spend(req);
      const shared = await links.open(params.token);
      if (shared.link.password_hash === null) return signGrant(shared.link, deps.clock());
      await ctx.limits?.spend('share_unlock_ip', clientKey(req.ip ?? ''));
      if (!(await verifyPassword(body.password, shared.link.password_hash)))
        throw errors.unauthorized('Wrong password for this share link');
      return signGrant(shared.link, deps.clock());
    },
  );

  defineOperation(
    ctx,
    {
      method: 'post',
      path: '/v1/shared/{token}/stats',
      summary:
        'The stats query through a share link, without credentials: aggregates only (no payload properties); a password-protected link needs its grant as a Bearer token',
      tag: 'shares',
      auth: false,
      role: 'public',
      access: 'read',
      params: SharedPath,
      body: SharedStatsRequest,
      response: StatsQueryResult,
      failures: ['share_link_invalid', 'unauthorized', 'rate_limited'],
    },
    async ({ params, body, req }) => {
      await spend(req);
      const shared = await links.open(params.token);
      requireGrant(shared, req);
      const { project } = shared;
      return answerStats(store, project, { ...body, origin: project.origin, project: project.project }, deps.clock());
    },
  );
}
