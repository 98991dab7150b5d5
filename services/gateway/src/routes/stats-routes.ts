// The stats query (issue 44; docs/analytics.md, Stats query): metrics by dimensions over a date
// range, filtered and compared, the figures, series and top-N lists of the dashboard's Overview.
import { StatsQueryRequest, StatsQueryResult } from '@spoor/schemas';
import type { Store } from '@spoor/store';
import { defineOperation, type RouteContext } from '../operation-route.js';
import { scopedProject } from '../project-scope.js';
import { answerStats } from '../stats-answer.js';

export function statsRoutes(ctx: RouteContext, store: Store, clock: () => number): void {
  defineOperation(
    ctx,
    {
      method: 'post',
      path: '/v1/stats/query',
      summary:
        'Stats: metrics (visitors, sessions, events, bounce rate, conversions…) by dimensions over a date range, filtered, compared with an earlier period',
      tag: 'analytics',
      auth: true,
      access: 'read',
      role: 'viewer',
      body: StatsQueryRequest,
      response: StatsQueryResult,
      failures: ['not_found', 'raw_fields_unverified'],
    },
    async ({ body, principal }) => {
      const p = await scopedProject(store, principal, body.origin, body.project);
      return answerStats(store, p, body, clock());
    },
  );
}
