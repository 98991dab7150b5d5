import { errors } from '@spoor/http';
import { ScopeQuery, TaggedSessions, TagList, TagPath, TagSessionsQuery } from '@spoor/schemas';
import type { Store } from '@spoor/store';
import { defineOperation, type RouteContext } from '../operation-route.js';
import { scopedProject } from '../project-scope.js';

export function tagRoutes(ctx: RouteContext, store: Store): void {
  defineOperation(
    ctx,
    {
      method: 'get',
      path: '/v1/tags',
      summary: 'Distinct tags of the project with last-seen times',
      tag: 'tags',
      auth: true,
      role: 'viewer',
      query: ScopeQuery,
      response: TagList,
      failures: ['not_found'],
    },
    async ({ query, principal }) => {
      const project = await scopedProject(store, principal, query.origin, query.project);
      return { tags: await store.tags.list(project.project_id) };
    },
  );

  defineOperation(
    ctx,
    {
      method: 'get',
      path: '/v1/tags/{tag}',
      summary: 'Sessions tagged within a time window, newest first',
      tag: 'tags',
      auth: true,
      role: 'viewer',
      query: TagSessionsQuery,
      params: TagPath,
      response: TaggedSessions,
      failures: ['not_found'],
    },
    async ({ query, params, principal }) => {
      // A window that ends before it starts is a mistake, not an empty answer: 422 as the triggers
      // answer it (job-routes.ts), where this answered 200 with no sessions (issue 20).
      if (
        query.window_start !== undefined &&
        query.window_end !== undefined &&
        query.window_start >= query.window_end
      ) {
        throw errors.validation([
          {
            loc: ['query', 'window_end'],
            msg: 'window_end must be after window_start',
            type: 'value_error',
            input: query.window_end,
          },
        ]);
      }
      const project = await scopedProject(store, principal, query.origin, query.project);
      return { tag: params.tag, sessions: await store.tags.sessions(project.project_id, params.tag, query) };
    },
  );
}
