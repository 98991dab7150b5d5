import type { Bus } from '@spoor/bus';
import { buildHealthReport, buildVersion } from '@spoor/runtime';
import { HealthHistory, HealthHistoryQuery, HealthReport, RECORD_KINDS } from '@spoor/schemas';
import type { Store } from '@spoor/store';
import { defineOperation, type RouteContext } from '../operation-route.js';

/**
 * GET /v1/status/health and its history (spec: Status; DESIGN.md, Health). System-wide figures
 * of every tenant: operators only (DESIGN.md, Operators); others get 403.
 */
export function statusRoutes(ctx: RouteContext, store: Store, bus: Bus, clock: () => number): void {
  defineOperation(
    ctx,
    {
      method: 'get',
      path: '/v1/status/health',
      summary:
        'Current pipeline health: services, ingest counters and rate, consumer lag, job failures, storage, problems',
      tag: 'status',
      auth: true,
      role: 'account',
      access: 'operator',
      response: HealthReport,
    },
    async () => buildHealthReport({ store, bus, clock, version: buildVersion() }),
  );
  defineOperation(
    ctx,
    {
      method: 'get',
      path: '/v1/status/health/history',
      summary: 'Recorded health snapshots (one a minute, kept 7 days), newest first',
      tag: 'status',
      auth: true,
      role: 'account',
      access: 'operator',
      query: HealthHistoryQuery,
      response: HealthHistory,
    },
    async ({ query }) => {
      const rows = await store.records.list<HealthReport>(RECORD_KINDS.health, '', {
        from: query.window_start,
        to: query.window_end,
        limit: query.limit,
      });
      return { snapshots: rows.map((r) => r.data) };
    },
  );
}
