import { errors } from '@spoor/http';
import { JobDispatchError, type JobDispatcher } from '@spoor/jobs';
import {
  BackfillRequest,
  ClassificationRequest,
  JobPath,
  JobQueued,
  JobSchema,
  limitParam,
  NotificationRequest,
  RequestBase,
  TransitionsRequest,
  z,
  type JobKind,
  type JobRecord,
} from '@spoor/schemas';
import type { Store } from '@spoor/store';
import { defineOperation, type RouteContext } from '../operation-route.js';
import { scopedProject } from '../project-scope.js';

const limitQuery = limitParam(20, 100);

const TRIGGERS: Array<{ kind: JobKind; body: z.ZodType<{ origin: string; project: string }>; summary: string }> = [
  { kind: 'aggregation', body: RequestBase, summary: 'Aggregates events and sessions of a project over a window' },
  {
    kind: 'notification',
    body: NotificationRequest,
    summary: 'Builds and sends a digest or notifications for a window',
  },
  { kind: 'transitions', body: TransitionsRequest, summary: 'Computes the transition matrix of a window' },
  {
    kind: 'classification',
    body: ClassificationRequest,
    summary: 'Reclassifies the named sessions with the current rules',
  },
  {
    kind: 'backfill',
    body: BackfillRequest,
    summary: 'Runs every session of the project through attribute extraction and classification again',
  },
];

export function jobRoutes(ctx: RouteContext, store: Store, dispatcher: JobDispatcher): void {
  for (const t of TRIGGERS) {
    defineOperation(
      ctx,
      {
        method: 'post',
        path: `/v1/trigger/${t.kind}`,
        summary: `${t.summary} (asynchronous: answers the queued job)`,
        tag: 'triggers',
        auth: true,
        role: 'editor',
        body: t.body,
        response: JobQueued,
        failures: ['not_found', 'rate_limited', 'unavailable'],
      },
      async ({ body, principal }) => {
        await ctx.limits?.spend('triggers_account', principal.account_id);
        const window = body as { window_start?: number; window_end?: number };
        if (
          window.window_start !== undefined &&
          window.window_end !== undefined &&
          window.window_start >= window.window_end
        ) {
          throw errors.validation([
            {
              loc: ['body', 'window_end'],
              msg: 'window_end must be after window_start',
              type: 'value_error',
              input: window.window_end,
            },
          ]);
        }
        const project = await scopedProject(store, principal, body.origin, body.project);
        const { origin: _o, project: _p, ...request } = body as Record<string, unknown>;
        try {
          const job = await dispatcher.dispatch(principal.account_id, project.project_id, t.kind, request);
          return { job_id: job.job_id, status: 'queued' as const };
        } catch (err) {
          if (err instanceof JobDispatchError) throw errors.unavailable('The job could not be queued; try again');
          throw err;
        }
      },
    );
  }

  async function publicJob(job: JobRecord) {
    const project = await store.projects.get(job.project_id);
    const { account_id: _a, project_id: _p, worker: _w, updated_at: _u, ...rest } = job;
    // A project deletion keeps the names in its request: once it ran, there is no project to ask.
    const named = job.request as { origin?: unknown; project?: unknown };
    const fallback = (v: unknown) => (typeof v === 'string' ? v : '');
    return {
      ...rest,
      origin: project?.origin ?? fallback(named.origin),
      project: project?.project ?? fallback(named.project),
    };
  }

  defineOperation(
    ctx,
    {
      method: 'get',
      path: '/v1/jobs/{job_id}',
      summary: 'Status, times, progress, result or error of a job',
      tag: 'triggers',
      auth: true,
      role: 'account',
      params: JobPath,
      response: JobSchema,
      failures: ['not_found'],
    },
    async ({ params, principal }) => {
      const job = await store.jobs.get(params.job_id);
      if (!job || job.account_id !== principal.account_id) throw errors.notFound('Job not found');
      return publicJob(job);
    },
  );

  defineOperation(
    ctx,
    {
      method: 'get',
      path: '/v1/jobs',
      summary: 'Your most recent jobs, newest first',
      tag: 'triggers',
      auth: true,
      role: 'account',
      query: z.object({ limit: limitQuery }),
      response: z.object({ jobs: z.array(JobSchema) }).openapi('JobList'),
    },
    async ({ query, principal }) => {
      const jobs = await store.jobs.listByAccount(principal.account_id, query.limit);
      return { jobs: await Promise.all(jobs.map(publicJob)) };
    },
  );
}
