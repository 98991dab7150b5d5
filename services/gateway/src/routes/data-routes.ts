// Data ownership (issue 17, docs/data.md): exports, project deletion and visitor erasure, all jobs.
import { pipeline } from 'node:stream/promises';
import type { Response } from 'express';
import { createError, errors, parseOr422 } from '@spoor/http';
import { JobDispatchError, type JobDispatcher } from '@spoor/jobs';
import {
  DeleteAccountQuery,
  DeleteProjectQuery,
  ErasureRequest,
  ExportPath,
  ExportQueued,
  ExportRequest,
  JobQueued,
  failuresOf,
  type ExportResult,
  type JobKind,
} from '@spoor/schemas';
import type { ExportCaps } from '@spoor/config';
import { accountProjects, type Store } from '@spoor/store';
import type { Principal } from '../auth-guard.js';
import { defineOperation, errorResponses, operationId, type RouteContext } from '../operation-route.js';
import { exportingProject, requireExporter } from '../export-grants.js';
import { requireVerified, scopedProject } from '../project-scope.js';
import { ExportQuota, type ExportJobRequest } from './export-quota.js';

export interface DataRouteDeps {
  store: Store;
  dispatcher: JobDispatcher;
  clock: () => number;
  /** SPOOR_EXPORT_MAX_ACTIVE, SPOOR_EXPORT_MAX_BYTES; none when only describing the API. */
  exportCaps?: ExportCaps;
}

export function dataRoutes(ctx: RouteContext, deps: DataRouteDeps): void {
  const { store } = deps;
  const quota = new ExportQuota({ store, caps: deps.exportCaps ?? { maxActive: 0, maxBytes: 0 }, clock: deps.clock });
  const dispatch = async (principal: Principal, projectId: string, kind: JobKind, request: Record<string, unknown>) => {
    try {
      const job = await deps.dispatcher.dispatch(principal.account_id, projectId, kind, request);
      return { job_id: job.job_id, status: 'queued' as const };
    } catch (err) {
      if (err instanceof JobDispatchError) throw errors.unavailable('The job could not be queued; try again');
      throw err;
    }
  };

  defineOperation(
    ctx,
    {
      method: 'post',
      path: '/v1/exports',
      summary:
        'Exports raw events, enriched events or sessions of a window as CSV, NDJSON or Parquet (asynchronous: answers the queued job; GET /v1/exports/{export_id}/file downloads the result)',
      tag: 'data',
      auth: true,
      role: 'editor',
      body: ExportRequest,
      response: ExportQueued,
      failures: ['domain_unverified', 'not_found', 'rate_limited', 'export_quota', 'unavailable'],
      audit: ['data.export_requested'],
    },
    async ({ body, principal, audit }) => {
      await ctx.limits?.spend('triggers_account', principal.account_id);
      if (body.window_start !== undefined && body.window_end !== undefined && body.window_start >= body.window_end) {
        throw errors.validation([
          {
            loc: ['body', 'window_end'],
            msg: 'window_end must be after window_start',
            type: 'value_error',
            input: body.window_end,
          },
        ]);
      }
      // An editor, or a viewer granted exports (issue 45).
      const project = await exportingProject(store, principal, body.origin, body.project);
      // Event rows carry payloads, IPs and user agents: the DNS gate of every raw read (issue 13).
      if (body.what !== 'sessions') requireVerified(project);
      const request: ExportJobRequest = {
        what: body.what,
        format: body.format,
        ...(body.window_start !== undefined && { window_start: body.window_start }),
        ...(body.window_end !== undefined && { window_end: body.window_end }),
      };
      const queued = await quota.admit(principal.account_id, project.project_id, request, () =>
        dispatch(principal, project.project_id, 'export', { ...request }),
      );
      audit.record(project, {
        action: 'data.export_requested',
        target: { kind: 'export', id: queued.job_id, name: `${body.what}.${body.format}` },
        changes: Object.fromEntries(Object.entries(request).map(([k, v]) => [k, { before: null, after: v }])),
      });
      return queued;
    },
  );

  registerFileOperation(ctx);
  ctx.router.get('/v1/exports/:export_id/file', ctx.authenticate, async (req, res) => {
    const { export_id } = parseOr422(ExportPath, req.params, 'path');
    const principal = res.locals['principal'] as Principal;
    const job = await store.jobs.get(export_id);
    if (!job || job.kind !== 'export' || job.account_id !== principal.account_id)
      throw errors.notFound('Export not found');
    // Its maker must still be allowed to export from the project (issue 45): an editor, or a viewer
    // still granted exports; a removed member's file is gone for them.
    const project = await store.projects.get(job.project_id);
    if (!project) throw errors.notFound('Export not found');
    await requireExporter(store, principal, project);
    if (job.status === 'failed')
      throw createError('export_not_ready', `The export failed: ${job.error ?? 'unknown error'}; start a new one`);
    if (job.status !== 'succeeded')
      throw createError(
        'export_not_ready',
        `The export is ${job.status}; GET /v1/jobs/${job.job_id} tells when it has succeeded`,
      );
    const result = job.result as ExportResult;
    if (deps.clock() >= result.expires_at) throw createError('export_expired');
    if (result.what !== 'sessions') requireVerified(project);
    const file = await store.exports.open(export_id);
    if (!file) throw createError('export_expired');
    res.status(200).set({
      'Content-Type': result.content_type,
      'Content-Length': String(file.bytes),
      'Content-Disposition': `attachment; filename="${result.file_name}"`,
      'Cache-Control': 'no-store',
    });
    await streamOut(file.stream, res);
  });

  defineOperation(
    ctx,
    {
      method: 'delete',
      path: '/v1/projects',
      summary:
        'Deletes the project and everything it holds: events, sessions, tags, rules, verdicts, jobs, overviews, channels, webhooks and deliveries, alerts, schedules (asynchronous: answers the queued job). `confirm` repeats the project identifier.',
      tag: 'data',
      auth: true,
      role: 'owner',
      query: DeleteProjectQuery,
      response: JobQueued,
      failures: ['not_found', 'rate_limited', 'unavailable'],
    },
    async ({ query, principal }) => {
      await ctx.limits?.spend('triggers_account', principal.account_id);
      const project = await scopedProject(store, principal, query.origin, query.project);
      if (query.confirm === undefined)
        throw errors.validation([{ loc: ['query', 'confirm'], msg: 'Field required', type: 'missing' }]);
      if (query.confirm !== query.project) {
        throw errors.validation([
          {
            loc: ['query', 'confirm'],
            msg: 'confirm must repeat the project identifier exactly',
            type: 'value_error',
            input: query.confirm,
          },
        ]);
      }
      // The names stay in the job's request: after the job, no project record is left to show them.
      return dispatch(principal, project.project_id, 'project_deletion', {
        origin: project.origin,
        project: project.project,
      });
    },
  );

  defineOperation(
    ctx,
    {
      method: 'delete',
      path: '/v1/users/account',
      summary:
        "Deletes the account, its API keys and all its projects with everything they hold (asynchronous: answers the queued job; the account's tokens stop working as soon as the job starts). `confirm` repeats the account's email (its account_id when it has none). ID tokens only.",
      tag: 'account',
      auth: true,
      role: 'account',
      query: DeleteAccountQuery,
      response: JobQueued,
      failures: ['account_deletion_needs_token', 'account_owns_shared_projects', 'rate_limited', 'unavailable'],
    },
    async ({ query, principal }) => {
      await ctx.limits?.spend('triggers_account', principal.account_id);
      // A leaked key must not be able to erase its owner; the owner signs in for this.
      if (principal.via !== 'token') throw createError('account_deletion_needs_token');
      const account = await store.accounts.get(principal.account_id);
      const expected = account?.email ?? principal.account_id;
      if (query.confirm === undefined)
        throw errors.validation([{ loc: ['query', 'confirm'], msg: 'Field required', type: 'missing' }]);
      if (query.confirm.trim().toLowerCase() !== expected.toLowerCase()) {
        const what = account?.email ? "the account's email" : "the account's id";
        throw errors.validation([
          {
            loc: ['query', 'confirm'],
            msg: `confirm must repeat ${what} exactly`,
            type: 'value_error',
            input: query.confirm,
          },
        ]);
      }
      // A project others share must keep an owner (issue 45): the caller transfers it first.
      const { blocks } = await accountProjects(store.members, principal.account_id);
      if (blocks.length > 0) {
        const named = await Promise.all(blocks.map((id) => store.projects.get(id)));
        const names = named.flatMap((p) => (p ? [`${p.project} (${p.origin})`] : []));
        throw createError('account_owns_shared_projects', names.join(', '));
      }
      // No project: the job is the account's, and deletes every project only the account is a member of.
      return dispatch(principal, '', 'account_deletion', {});
    },
  );

  defineOperation(
    ctx,
    {
      method: 'post',
      path: '/v1/erasures',
      summary:
        'Erases one person of the project: by session_id, visitor_id or ip (exactly one), their raw and enriched events, sessions, tags and classifications; overviews that counted them are rebuilt (asynchronous: answers the queued job; docs/data.md)',
      tag: 'data',
      auth: true,
      role: 'admin',
      body: ErasureRequest,
      response: JobQueued,
      failures: ['not_found', 'rate_limited', 'unavailable'],
      audit: ['data.erasure_requested'],
    },
    async ({ body, principal, audit }) => {
      await ctx.limits?.spend('triggers_account', principal.account_id);
      const project = await scopedProject(store, principal, body.origin, body.project);
      // No DNS gate (requireVerified): an erasure deletes and answers no event rows, and an owner
      // must be able to honour a request before, or without ever, proving the domain.
      const { origin: _o, project: _p, ...request } = body;
      const queued = await dispatch(principal, project.project_id, 'erasure', request);
      // How the person was named, never who: the trail must not keep what the erasure removes.
      const by = Object.keys(request).filter((k) => request[k as keyof typeof request] !== undefined);
      audit.record(project, {
        action: 'data.erasure_requested',
        target: { kind: 'erasure', id: queued.job_id, name: null },
        changes: { by: { before: null, after: by.join(',') } },
      });
      return queued;
    },
  );
}

/** Once the headers are out an error can no longer become a JSON answer: the connection is cut, so the client sees a short file fail rather than end. */
async function streamOut(stream: NodeJS.ReadableStream, res: Response): Promise<void> {
  try {
    await pipeline(stream, res);
  } catch (err) {
    if (!res.headersSent) throw err;
    res.destroy(err instanceof Error ? err : new Error(String(err)));
  }
}

/** The file download answers bytes, not JSON, so it is mounted by hand and documented here. */
function registerFileOperation(ctx: RouteContext): void {
  const path = '/v1/exports/{export_id}/file';
  const binary = { schema: { type: 'string', format: 'binary' } } as const;
  ctx.registry.registerPath({
    method: 'get',
    path,
    operationId: operationId('get', path),
    summary: 'Downloads a finished export, streamed (for 24 hours after it was written; docs/data.md)',
    tags: ['data'],
    security: [{ bearerAuth: [] }],
    'x-spoor-role': 'editor',
    request: { params: ExportPath },
    responses: {
      200: {
        description: 'The file',
        content: { 'text/csv': binary, 'application/x-ndjson': binary, 'application/vnd.apache.parquet': binary },
      },
      // A file, not JSON, so not a defineOperation; its errors come from the catalogue all the same.
      ...errorResponses(
        failuresOf({
          method: 'get',
          auth: true,
          role: 'editor',
          params: ExportPath,
          failures: ['domain_unverified', 'not_found', 'export_expired', 'export_not_ready'],
        }),
      ),
    },
  });
}
