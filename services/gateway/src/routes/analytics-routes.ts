// Funnels and retention (issue 18; docs/analytics.md): a funnel answered synchronously, saved
// funnels as records of kind `funnel`, and retention cohorts.
import { randomUUID } from 'node:crypto';
import { errors } from '@spoor/http';
import {
  CreateFunnelRequest,
  FUNNEL_LIMITS,
  FunnelListQuery,
  FunnelPath,
  FunnelQueryRequest,
  FunnelResultSchema,
  RETENTION_LIMITS,
  RECORD_KINDS,
  RetentionQuery,
  RetentionResultSchema,
  SavedFunnelList,
  SavedFunnelQuery,
  SavedFunnelSchema,
  ScopeQuery,
  type ProjectRecord,
  type SavedFunnelData,
} from '@spoor/schemas';
import type { Store } from '@spoor/store';
import { answerFunnel, requireFunnelReadable } from '../funnel-answer.js';
import { defineOperation, type RouteContext } from '../operation-route.js';
import { scopedProject } from '../project-scope.js';

/** Saved funnels are records of this kind; the worker reads them for digests. */
export const FUNNEL_RECORD_KIND = RECORD_KINDS.funnel;
const DAY_MS = 86_400_000;
const PERIOD_MS = { day: DAY_MS, week: 7 * DAY_MS } as const;
/** 1970-01-01 was a Thursday: weeks start 4 days after the epoch, Monday 00:00 UTC. */
const WEEK_OFFSET_MS = 4 * DAY_MS;

const show = (p: ProjectRecord, d: SavedFunnelData) => ({ ...d, origin: p.origin, project: p.project });

function funnelWindow(
  q: { window_start?: number | undefined; window_end?: number | undefined },
  now: number,
  where: 'body' | 'query',
) {
  const end = q.window_end ?? now;
  // The default week before an early window_end starts at the epoch, never before (issue 43).
  const start = q.window_start ?? Math.max(0, end - FUNNEL_LIMITS.defaultWindowMs);
  const fault = (field: 'window_start' | 'window_end', msg: string) =>
    errors.validation([{ loc: [where, field], msg, type: 'value_error' }]);
  if (end <= start)
    throw fault(q.window_start === undefined ? 'window_end' : 'window_start', 'window_start must be before window_end');
  // The schema checks the span when both ends are given; an end left out is filled in here, so
  // the bound is checked again on the window actually run (issue 43: {"window_start":0} ran 56 years).
  if (end - start > FUNNEL_LIMITS.maxWindowMs)
    throw fault(
      q.window_end === undefined ? 'window_start' : 'window_end',
      `The window spans at most ${FUNNEL_LIMITS.maxWindowMs / 86_400_000} days`,
    );
  return { start, end };
}

export function analyticsRoutes(ctx: RouteContext, store: Store, clock: () => number): void {
  defineOperation(
    ctx,
    {
      method: 'post',
      path: '/v1/funnels/query',
      summary: 'A funnel over a window: per step entered, converted, conversion and median time to the next step',
      tag: 'analytics',
      auth: true,
      role: 'viewer',
      access: 'read',
      body: FunnelQueryRequest,
      response: FunnelResultSchema,
      failures: ['not_found', 'raw_fields_unverified'],
    },
    async ({ body, principal }) => {
      const p = await scopedProject(store, principal, body.origin, body.project);
      return answerFunnel(store, p, body, funnelWindow(body, clock(), 'body'));
    },
  );

  defineOperation(
    ctx,
    {
      method: 'get',
      path: '/v1/funnels',
      summary: "The project's saved funnels, newest first",
      tag: 'analytics',
      auth: true,
      role: 'viewer',
      query: FunnelListQuery,
      response: SavedFunnelList,
      failures: ['not_found'],
    },
    async ({ query, principal }) => {
      const p = await scopedProject(store, principal, query.origin, query.project);
      const rows = await store.records.list<SavedFunnelData>(FUNNEL_RECORD_KIND, p.project_id, { limit: query.limit });
      return { funnels: rows.map((r) => show(p, r.data)) };
    },
  );

  defineOperation(
    ctx,
    {
      method: 'post',
      path: '/v1/funnels',
      summary: 'Saves a funnel',
      tag: 'analytics',
      auth: true,
      role: 'editor',
      body: CreateFunnelRequest,
      response: SavedFunnelSchema,
      failures: ['not_found', 'raw_fields_unverified'],
      audit: ['funnel.saved'],
    },
    async ({ body, principal, audit }) => {
      const p = await scopedProject(store, principal, body.origin, body.project);
      requireFunnelReadable(p, body.steps);
      const now = clock();
      const data: SavedFunnelData = {
        funnel_id: randomUUID(),
        name: body.name,
        steps: body.steps,
        unit: body.unit,
        order: body.order,
        conversion_window_ms: body.conversion_window_ms,
        breakdown: body.breakdown ?? null,
        created_at: now,
      };
      await store.records.put([
        {
          kind: FUNNEL_RECORD_KIND,
          project_id: p.project_id,
          id: data.funnel_id,
          parent_id: '',
          sort_key: now,
          data,
          updated_at: now,
          deleted: false,
        },
      ]);
      audit.record(p, {
        action: 'funnel.saved',
        target: { kind: 'funnel', id: data.funnel_id, name: data.name },
        changes: { name: { before: null, after: data.name }, steps: { before: null, after: data.steps.length } },
      });
      return show(p, data);
    },
  );

  const find = async (
    principal: Parameters<typeof scopedProject>[1],
    scope: { origin: string; project: string },
    id: string,
  ) => {
    const p = await scopedProject(store, principal, scope.origin, scope.project);
    const found = await store.records.get<SavedFunnelData>(FUNNEL_RECORD_KIND, p.project_id, id);
    if (!found) throw errors.notFound('Funnel not found');
    return { p, found };
  };

  defineOperation(
    ctx,
    {
      method: 'get',
      path: '/v1/funnels/{funnel_id}',
      summary: 'One saved funnel',
      tag: 'analytics',
      auth: true,
      role: 'viewer',
      params: FunnelPath,
      query: ScopeQuery,
      response: SavedFunnelSchema,
      failures: ['not_found'],
    },
    async ({ params, query, principal }) => {
      const { p, found } = await find(principal, query, params.funnel_id);
      return show(p, found.data);
    },
  );

  defineOperation(
    ctx,
    {
      method: 'get',
      path: '/v1/funnels/{funnel_id}/result',
      summary: 'A saved funnel over a window (default: the last 7 days)',
      tag: 'analytics',
      auth: true,
      role: 'viewer',
      params: FunnelPath,
      query: SavedFunnelQuery,
      response: FunnelResultSchema,
      failures: ['not_found', 'raw_fields_unverified'],
    },
    async ({ params, query, principal }) => {
      const { p, found } = await find(principal, query, params.funnel_id);
      return answerFunnel(store, p, found.data, funnelWindow(query, clock(), 'query'));
    },
  );

  defineOperation(
    ctx,
    {
      method: 'delete',
      path: '/v1/funnels/{funnel_id}',
      summary: 'Deletes a saved funnel',
      tag: 'analytics',
      auth: true,
      role: 'editor',
      params: FunnelPath,
      query: ScopeQuery,
      response: SavedFunnelSchema,
      failures: ['not_found'],
      audit: ['funnel.deleted'],
    },
    async ({ params, query, principal, audit }) => {
      const { p, found } = await find(principal, query, params.funnel_id);
      await store.records.put([{ ...found, updated_at: Math.max(clock(), found.updated_at + 1), deleted: true }]);
      audit.record(p, {
        action: 'funnel.deleted',
        target: { kind: 'funnel', id: found.data.funnel_id, name: found.data.name },
        changes: { name: { before: found.data.name, after: null } },
      });
      return show(p, found.data);
    },
  );

  defineOperation(
    ctx,
    {
      method: 'get',
      path: '/v1/retention',
      summary: 'Retention: visitors by the day or week they were first seen, and the share back in each later period',
      tag: 'analytics',
      auth: true,
      role: 'viewer',
      query: RetentionQuery,
      response: RetentionResultSchema,
      failures: ['not_found'],
    },
    async ({ query, principal }) => {
      const p = await scopedProject(store, principal, query.origin, query.project);
      const periodMs = PERIOD_MS[query.period];
      const offset = query.period === 'week' ? WEEK_OFFSET_MS : 0;
      const floor = (t: number) => Math.floor((t - offset) / periodMs) * periodMs + offset;
      // By default the current period is the last one, whole: the same answer all through it.
      const end = query.window_end ?? floor(clock()) + periodMs;
      const requested =
        query.window_start ??
        end - (query.period === 'day' ? RETENTION_LIMITS.defaultDays : RETENTION_LIMITS.defaultWeeks) * periodMs;
      const start = floor(requested);
      if (end <= start)
        throw errors.validation([
          { loc: ['query', 'window_start'], msg: 'window_start must be before window_end', type: 'value_error' },
        ]);
      const max = query.period === 'day' ? RETENTION_LIMITS.maxDays : RETENTION_LIMITS.maxWeeks;
      if (Math.ceil((end - start) / periodMs) > max)
        throw errors.validation([
          { loc: ['query', 'window_start'], msg: `At most ${max} ${query.period}s of cohorts`, type: 'value_error' },
        ]);
      const cohorts = await store.retention.cohorts(p.project_id, {
        window: { start, end },
        periodMs,
        action: query.action ?? null,
      });
      return {
        origin: p.origin,
        project: p.project,
        period: query.period,
        period_ms: periodMs,
        window_start: start,
        window_end: end,
        action: query.action ?? null,
        cohorts: cohorts.map((c) => ({ ...c, shares: c.returning.map((n) => (c.size === 0 ? 0 : n / c.size)) })),
      };
    },
  );
}
